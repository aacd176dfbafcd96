//go:build !js

package fleet_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/fleet/fleetlocal"
	"github.com/rollnet/rollnet/netplay"
)

// TestFreshClientsAfterEveryoneLeft: two bots play a room and leave, and
// while its match lingers (-match-linger) two fresh bots come to the
// room, three times over. Every bot plays: a lingering match, whose slots
// its players hold for their rejoin, gives way to the room's next match
// when a fresh client comes. Before, the fresh clients joined the old
// match beside the held slots, and on the third round the host refused
// them in silence (four records of one address, MaxClientsPerAddress):
// each heard nothing from a host that was there until its timeout, the
// fleet process test's rare "told its host is gone" of a live host. One
// host of one match: the next match fits only if the lingering one ended
// first.
func TestFreshClientsAfterEveryoneLeft(t *testing.T) {
	if testing.Short() {
		t.Skip("a fleet on loopback, real time")
	}
	f, err := fleetlocal.Start(fleetlocal.Options{Hosts: 1, Signals: 1, Capacity: 1, Linger: time.Minute, Drain: time.Second})
	require.NoError(t, err)
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kv := bucketAt(t, f)

	for round := range 5 {
		var wg sync.WaitGroup
		var bots [2]fleetlocal.Outcome
		for i := range bots {
			wg.Add(1)
			go func() {
				defer wg.Done()
				bots[i] = fleetlocal.Play(ctx, f.Signals[0], "r", "1", 20, 10*time.Second)
			}()
		}
		wg.Wait()
		for i, o := range bots {
			require.True(t, o.Played, "round %d, bot %d: %+v (the other: %+v)", round, i, o, bots[1-i])
		}
		// The host's record says its match runs with no client
		// connected: the bots' leaving was seen, the match lingers.
		for {
			h, _ := hostRecord(t, kv, "h1")
			if h.Running == 1 && h.Connected == 0 {
				break
			}
			require.NoError(t, ctx.Err(), "round %d: the host's record never said its match lingers: %+v", round, h)
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// TestLateClientKeepsItsRoom: a room's two clients connect apart. The
// first plays its match alone and leaves; the second, placed in the
// room's entry while the match lingers, has not come when it ends. The
// host's record keeps the room for it, and its slot is not placed again.
// Before, the beat took the entry out at the end, a placer could place
// another room in the slot, and the late client, coming, started the
// room's match beside it, past the host's capacity, or found the host
// full (the fleet process test's "refused full", once a fix of a beat's
// lost compare-and-set stopped keeping such entries by chance).
func TestLateClientKeepsItsRoom(t *testing.T) {
	if testing.Short() {
		t.Skip("a fleet on loopback, real time")
	}
	// The match lingers 3 s once its client left: beats (every 500 ms) say
	// it runs before it ends, on a loaded machine too.
	f, err := fleetlocal.Start(fleetlocal.Options{Hosts: 1, Signals: 1, Capacity: 1, Drain: time.Second, Linger: 3 * time.Second})
	require.NoError(t, err)
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kv := bucketAt(t, f)

	first := fleetlocal.Play(ctx, f.Signals[0], "r", "1", 20, 10*time.Second)
	require.True(t, first.Played, "%+v", first)
	late, err := netplay.Place(ctx, f.Signals[0], fleet.Request{Game: "court", Room: "r", Version: "1"})
	require.NoError(t, err)
	require.True(t, late.Joined, "the second client is placed in the first's match: %+v", late)
	// The match ends (its linger over): the first beat that says the host
	// runs none, after one said it ran the match, took the end.
	for ran := false; ; {
		h, _ := hostRecord(t, kv, "h1")
		ran = ran || h.Running == 1
		if ran && h.Running == 0 {
			require.Len(t, h.Matches, 1, "the room's entry stays for its late client: %+v", h)
			require.Equal(t, fleet.Match{Room: "r", Game: "court", Clients: 1, Placed: h.Matches[0].Placed}, h.Matches[0], "its one client to come")
			break
		}
		require.NoError(t, ctx.Err(), "the host's match never ended: %+v", h)
		time.Sleep(20 * time.Millisecond)
	}
	_, err = netplay.Place(ctx, f.Signals[0], fleet.Request{Game: "court", Room: "x", Version: "1"})
	require.ErrorIs(t, err, fleet.ErrNoHost, "the late client's slot was placed again")
}
