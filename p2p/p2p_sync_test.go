package p2p

import (
	"errors"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// tickUntilErr ticks node n by hand (AddLocalInput, AdvanceFrame, Events)
// and returns AdvanceFrame's error.
func tickHand(n *p2pNode) error {
	for _, pl := range n.locals {
		_ = n.p.AddLocalInput(pl, 0)
	}
	err := n.p.AdvanceFrame()
	n.events = n.p.Events(n.events)
	return err
}

// A peer that never answers fails the handshake after SyncTimeout (10 s by
// default), with a SyncFailed event and a *SyncError, instead of
// ErrNotSynchronized forever. A peer that shows up after that gets no
// replies from the failed session, and times out in turn.
func TestP2PSyncTimeout(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 2, seed: 51, link: local.Link{Latency: 10 * time.Millisecond}})
	p0, p1 := c.nodes[0], c.nodes[1]
	p1.paused = true
	for c.clock.Now().Before(p2pEpoch.Add(10*time.Second - 20*time.Millisecond)) {
		require.ErrorIs(t, tickHand(p0), ErrNotSynchronized)
		c.clock.Advance(time.Second / 60)
	}
	_, failed := p0.first(rollnet.EventSyncFailed)
	require.False(t, failed, "before the default 10 s")
	c.clock.Advance(time.Second / 30)
	err := tickHand(p0)
	var se *rollnet.SyncError
	require.ErrorAs(t, err, &se)
	require.Equal(t, link.ReasonTimeout, se.Reason)
	require.EqualValues(t, "p1", se.Peer)
	e, ok := p0.first(rollnet.EventSyncFailed)
	require.True(t, ok)
	require.Equal(t, link.ReasonTimeout, e.Reason)
	require.EqualValues(t, "p1", e.Peer)
	require.ErrorAs(t, p0.p.Poll(), &se)

	// p1 starts late: p0 keeps polling but does not answer a handshake it
	// already gave up; p1 fails after its own timeout, never running.
	late := c.clock.Now()
	for c.clock.Now().Before(late.Add(10*time.Second + 50*time.Millisecond)) {
		_ = p0.p.Poll()
		err = tickHand(p1)
		if err != nil && !errors.Is(err, ErrNotSynchronized) {
			break
		}
		c.clock.Advance(time.Second / 60)
	}
	require.ErrorAs(t, err, &se)
	require.Equal(t, link.ReasonTimeout, se.Reason)
	require.False(t, p1.p.Running())
	_, ok = p1.first(rollnet.EventSynchronized)
	require.False(t, ok, "no handshake with a session that failed")
}

// SyncTimeout is configurable; negative is refused.
func TestP2PSyncTimeoutConfig(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 2, seed: 52, net: rollnet.NetConfig{SyncTimeout: time.Second}})
	c.nodes[1].paused = true
	at := p2pEpoch
	for range 120 {
		if err := tickHand(c.nodes[0]); !errors.Is(err, ErrNotSynchronized) {
			require.ErrorIs(t, err, rollnet.ErrSyncFailed)
			break
		}
		c.clock.Advance(time.Second / 60)
		at = c.clock.Now()
	}
	require.True(t, c.nodes[0].p.ep.Err() != nil, "no failure after 2 s")
	require.WithinDuration(t, p2pEpoch.Add(time.Second), at, time.Second/60)

	_, err := New[p2pWorld](Config[uint16]{Session: session.Config[uint16]{Players: 1}, Remote: []transport.Peer{""},
		Net: rollnet.NetConfig{SyncTimeout: -1}}, c.nodes[0].ep, simP2P)
	require.ErrorIs(t, err, rollnet.ErrConfig)
}

// A spectator whose host never answers fails after SyncTimeout; a host
// whose spectator never shows reports SyncFailed for it and plays on.
func TestP2PSyncTimeoutSpectator(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 2, spectators: 1, seed: 53, link: local.Link{Latency: 10 * time.Millisecond},
		net: rollnet.NetConfig{SyncTimeout: 2 * time.Second}})
	spec := c.nodes[2]
	spec.paused = true
	c.run(3 * time.Second)
	e, ok := c.nodes[0].first(rollnet.EventSyncFailed)
	require.True(t, ok, "host: %v", c.nodes[0].events)
	require.EqualValues(t, "s0", e.Peer)
	require.Equal(t, link.ReasonTimeout, e.Reason)
	c.frames(300, 10*time.Second) // the players play on (tickNode fails on any other error)
	st, err := c.nodes[0].p.PeerStats("s0")
	require.NoError(t, err)
	require.False(t, st.Synchronized)

	// The spectator starts now: its host gave up on it, so it times out.
	spec.paused = false
	late := c.clock.Now()
	var serr error
	for c.clock.Now().Before(late.Add(3 * time.Second)) {
		serr = spec.s.AdvanceFrame()
		spec.events = spec.s.Events(spec.events)
		if serr != nil && !errors.Is(serr, ErrNotSynchronized) {
			break
		}
		c.clock.Advance(time.Second / 60)
	}
	var se *rollnet.SyncError
	require.ErrorAs(t, serr, &se)
	require.Equal(t, link.ReasonTimeout, se.Reason)
	require.EqualValues(t, "p0", se.Peer)
}

// PeerStats counts the checksums compared with each peer, once per frame
// however often a report arrives (each is sent several times, and this
// link duplicates and reorders), and how many agreed.
func TestP2PChecksumCounts(t *testing.T) {
	const interval = 30
	c := newCluster(t, clusterOpts{players: 2, spectators: 1, seed: 54, mash: 0.3,
		link: local.Link{Latency: 40 * time.Millisecond, Jitter: 6 * time.Millisecond, Duplicate: 0.2, Reorder: 0.1},
		cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 32}, net: rollnet.NetConfig{ChecksumInterval: interval}})
	c.frames(600, 30*time.Second)
	p0, p1, spec := c.nodes[0], c.nodes[1], c.nodes[2]
	check := func(who string, st rollnet.PeerStats, upto rollnet.Frame) {
		t.Helper()
		most := uint64(upto / interval)
		require.LessOrEqual(t, st.ChecksumsCompared, most, "%s: at most one per checksum frame up to %d", who, upto)
		require.GreaterOrEqual(t, st.ChecksumsCompared, most-3, "%s: up to %d", who, upto)
		require.Equal(t, st.ChecksumsCompared, st.ChecksumsAgreed, who)
	}
	st, err := p0.p.PeerStats("p1")
	require.NoError(t, err)
	check("p0/p1", st, min(p0.p.ConfirmedFrame(), p1.p.ConfirmedFrame()))
	st, err = p1.p.PeerStats("p0")
	require.NoError(t, err)
	check("p1/p0", st, min(p0.p.ConfirmedFrame(), p1.p.ConfirmedFrame()))
	st, err = p0.p.PeerStats("s0")
	require.NoError(t, err)
	check("p0/s0", st, spec.s.Frame()-1)
	check("s0/p0", spec.s.PeerStats(), spec.s.Frame()-1)
}

// The round-trip time is measured between game-loop ticks: the report goes
// out at a tick, waits at the peer for its next tick, and the reply waits
// here for ours. With steady loops it is a whole number of ticks, at least
// one however short the link (the documented behaviour of PeerStats.RTT).
func TestP2PRTTIsGameLoopRoundTrip(t *testing.T) {
	tick := time.Second / 60
	for _, tc := range []struct {
		latency time.Duration
		ticks   int
	}{
		{0, 1},                     // loopback: one tick, not zero
		{10 * time.Millisecond, 3}, // 20 ms on the wire: sent at 0, read at 24.7 there, back at 50
	} {
		c := newCluster(t, clusterOpts{players: 2, seed: 55, link: local.Link{Latency: tc.latency}})
		c.nodes[1].next = p2pEpoch.Add(8 * time.Millisecond) // the peer ticks half a tick later
		c.frames(120, 10*time.Second)
		st, err := c.nodes[0].p.PeerStats("p1")
		require.NoError(t, err)
		require.Equal(t, time.Duration(tc.ticks)*tick, st.RTT, "latency %v", tc.latency)
	}
}
