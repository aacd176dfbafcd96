//go:build !js

package fleet_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/internal/fleethost"
)

// TestRoomKeyNotHeldByItsHost: a room key that names a live host whose
// own record does not hold the room (written by someone who should not
// have, or left from an ended match) sends nobody there: the room is
// placed anew, on a host whose record then holds it.
func TestRoomKeyNotHeldByItsHost(t *testing.T) {
	e := startNATS(t)
	join(t, e, "h1", "1", 4, 2)
	join(t, e, "h2", "1", 4, 2)
	p := placer(t, e, fleet.Spread)
	waitHosts(t, p, 2)
	kv := bucket(t, e.Connect(t))
	ctx := context.Background()
	for _, id := range []string{"h1", "h2"} {
		room := "forged-" + id
		b, _ := json.Marshal(map[string]string{"host": id})
		_, err := kv.Put(ctx, "room.court."+room, b)
		require.NoError(t, err)
		r, err := p.Place(ctx, fleet.Request{Game: "court", Room: room, Version: "1"})
		require.NoError(t, err)
		require.False(t, r.Joined, "joined a match %s's record does not hold", id)
		h, _ := hostRecord(t, kv, r.Host)
		require.Len(t, h.Matches, 1, "the room is placed in the record of the host it names")
		require.Equal(t, room, h.Matches[0].Room)
		// Spread places the next room on the other host once the mirror
		// has this placement (before, the next Place could run on a mirror
		// without it, under -race, and put both rooms on one host).
		waitMirrorHolds(t, p, r.Host, room)
	}
	require.Equal(t, uint64(2), p.Stats().Stale)
}

// waitMirrorHolds waits until p's mirror has host id's record with room.
func waitMirrorHolds(t *testing.T, p *fleet.Placer, id, room string) {
	t.Helper()
	deadline := time.Now().Add(eventBound)
	for {
		for _, h := range p.View().Hosts {
			for _, m := range h.Matches {
				if h.ID == id && m.Room == room {
					return
				}
			}
		}
		require.True(t, time.Now().Before(deadline), "waited %v for the placer to see room %s on host %s", eventBound, room, id)
		time.Sleep(5 * time.Millisecond)
	}
}

// TestOldLayoutHostNotPlaced: a host whose record is of another bucket
// layout (an older rollnet-host: it takes drain orders from its record and
// writes room keys) is never placed on.
func TestOldLayoutHostNotPlaced(t *testing.T) {
	e := startNATS(t)
	p := placer(t, e, fleet.Fill)
	kv := bucket(t, e.Connect(t))
	ctx := context.Background()
	old := fleet.Host{ID: "old", Version: "1", Games: []fleet.Game{{Name: "court", Clients: 2}}, QUIC: "127.0.0.1:4999",
		Capacity: fleet.Capacity{Matches: 4, Clients: 8}}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // it beats, as a live host does
		defer close(done)
		for {
			old.Beat++
			b, _ := json.Marshal(old)
			_, _ = kv.Put(ctx, "host.old", b)
			select {
			case <-stop:
				return
			case <-time.After(testConfig.Tuning.Heartbeat):
			}
		}
	}()
	defer func() { close(stop); <-done }()
	join(t, e, "h1", "1", 1, 2) // a current host, to know the placer's mirror has the records
	waitHosts(t, p, 1)
	require.Equal(t, "", hostState(p, "old"), "the old host is in the view")
	_, err := p.Place(ctx, fleet.Request{Game: "court", Room: "a", Version: "1"})
	require.NoError(t, err)
	_, err = p.Place(ctx, fleet.Request{Game: "court", Room: "b", Version: "1"})
	require.ErrorIs(t, err, fleet.ErrNoHost, "placed on a host of the old layout")
}

// TestDrainOrder: an operator's drain order (fleet.Drain, the key
// drain.<id>) drains the host; an order written before the host joined
// (one left from the host that ran under that id before) does not.
func TestDrainOrder(t *testing.T) {
	e := startNATS(t)
	p := placer(t, e, fleet.Fill)
	ctx := context.Background()
	require.NoError(t, fleet.Drain(ctx, e.Connect(t), testConfig, "h1"))
	m := join(t, e, "h1", "1", 4, 2)
	waitHosts(t, p, 1)
	beat := m.Stats().Beats
	waitBeats(t, m, beat+3)
	require.False(t, m.Draining(), "an order written before the host joined drained it")
	_, err := p.Place(ctx, fleet.Request{Game: "court", Room: "a", Version: "1"})
	require.NoError(t, err)

	require.NoError(t, fleet.Drain(ctx, e.Connect(t), testConfig, "h1"))
	deadline := time.Now().Add(eventBound)
	for !m.Draining() || hostState(p, "h1") != "draining" {
		require.True(t, time.Now().Before(deadline), "the drain order is not taken")
		time.Sleep(5 * time.Millisecond)
	}
	_, err = p.Place(ctx, fleet.Request{Game: "court", Room: "b", Version: "1"})
	require.ErrorIs(t, err, fleet.ErrNoHost)
	require.ErrorIs(t, fleet.Drain(ctx, e.Connect(t), testConfig, "no/such"), rollnet.ErrConfig)
}

// waitBeats waits until m has beaten n times (eventBound at most).
func waitBeats(t *testing.T, m *fleethost.Member, n uint64) {
	t.Helper()
	deadline := time.Now().Add(eventBound)
	for m.Stats().Beats < n {
		require.True(t, time.Now().Before(deadline), "the host beat %d times, not %d, in %v: %+v", m.Stats().Beats, n, eventBound, m.Stats())
		time.Sleep(5 * time.Millisecond)
	}
}
