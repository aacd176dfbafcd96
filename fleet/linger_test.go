//go:build !js

package fleet_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/fleet/fleetlocal"
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
