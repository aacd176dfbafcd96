package authority

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport/local"
)

// A client whose upload latency jumps from 20 to 200 ms is late for as long
// as time dilation needs to bring it ahead again: every late input is
// counted, and applied in order at the frames that lack one of their own;
// the only ones not applied are those still waiting when the client's own
// inputs are on time again (superseded, counted apart, a handful).
func TestLateInputsApplied(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 11, players: 1, link: local.Link{Latency: 20 * time.Millisecond}})
	a := c.add("a", ClientConfig{}, mash(1, 2))
	c.run(3 * time.Second)
	require.True(t, a.c.Synchronized())
	require.NoError(t, c.net.SetLink("a", "host", local.Link{Latency: 200 * time.Millisecond}))
	c.run(20 * time.Second)
	s := c.h.Clients(nil)[0]
	t.Logf("%+v", s)
	late := s.LateInputs
	require.Greater(t, late, uint64(100))
	pending := uint64(c.h.clients[0].lateN)
	require.Equal(t, late, s.LateApplied+s.LateSuperseded+s.LateDropped+pending, "every late input applied or counted")
	// Superseded: still waiting when the client's own inputs were on time
	// again, at most the frames it had fallen behind (200-20 ms is 11
	// frames) plus the two dilation overshoots.
	require.LessOrEqual(t, s.LateSuperseded, uint64(16))
	require.Zero(t, s.LateDropped, "the queue never overflowed")
	require.Zero(t, s.Displaced, "no resume, no backlog")
	require.Zero(t, s.InputsLost)
	require.InDelta(t, 2, s.Depth, 1, "time dilation brought the client back ahead")
}

// With LateRollback, a client whose inputs often arrive a frame or two late
// (within the rollback window) leaves the host exactly where a host that
// had every input on time would be.
func TestLateRollbackMatchesOnTime(t *testing.T) {
	link := local.Link{Latency: 40 * time.Millisecond, Jitter: 40 * time.Millisecond}
	c := newCluster(t, clusterOpts{seed: 12, players: 2, link: link, host: HostConfig[uint16]{LateInput: LateRollback, TargetDepth: 1}})
	c.noCheck = true // a host that rolls back changes frames it already sent
	m := mash(3, 2)
	in := func(f rollnet.Frame) uint16 { // still while the client joins and anchors
		if f < 200 {
			return 0
		}
		return m(f)
	}
	a := c.add("a", ClientConfig{TargetDepth: 1}, in)
	c.run(20 * time.Second)
	s := c.h.Clients(nil)[0]
	t.Logf("%+v; host %+v", s, c.h.Stats())
	// The dilation advice holds the latest inputs about on time, so fewer
	// arrive late than under the mean-only advice (over 20), and they come
	// a few to a rollback (35 late in 5 rollbacks seen): enough to roll
	// back for.
	require.Greater(t, s.LateRolledBack, uint64(10))
	require.Zero(t, s.LateApplied, "every late input fell inside the window")
	require.Greater(t, c.h.Stats().Rollbacks, 2)
	require.Equal(t, uint64(1), a.c.Stats().Reanchors)

	// The host that had every input on time.
	slot := s.First
	end := c.h.Frame() - rollnet.Frame(c.h.s.window) - 2
	var ref world
	inputs := make([]uint16, 2)
	for f := rollnet.Frame(0); f <= end; f++ {
		clear(inputs)
		inputs[slot] = in(f)
		simWorld(&ref, inputs, f)
	}
	got, err := c.h.session.StateAt(end)
	require.NoError(t, err)
	require.Equal(t, rollback.BytesOf(&ref), rollback.BytesOf(got))
}
