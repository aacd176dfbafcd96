package torture

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/transport"
	"github.com/stretchr/testify/require"
)

// T11: rejoins over the hostile network. Four players and two spectators;
// p3's process crashes a fifth of the way in and a new process takes its
// place 5 s later, from a new address (a restarted process's new id),
// with nothing but the token (p2p.Config.Rejoin); at three
// fifths p2's link drops for 3 s and the same session comes back on a new
// endpoint (p2p.Session.Rejoin). Every node must report the same R for each
// rejoin, and every frame confirmed on two nodes (the rejoiners' replays
// included, spectators too) must agree, to the end.

func TestT11RejoinHostileNetwork(t *testing.T) {
	frames := scaled(6000)
	if race.Enabled {
		frames = scaled(2400)
	}
	seed := baseSeed() + 10
	c := newPCluster(t, seed, pOpts{players: 4, spectators: 2, link: hostileLink,
		net: rollnet.NetConfig{}, archive: frames + 1000})
	c.runTo(frames/5, frames, 0.2)

	// p3 crashes; a new process comes back with the token.
	p3 := c.nodes[3]
	tok, ok := p3.p.RejoinToken()
	require.True(t, ok)
	c.dropNode(p3)
	for range 5 * 60 {
		c.tick(0.2)
	}
	cfg := c.cfgOf(3)
	cfg.Rejoin = tok
	p3.name += "-new"
	q, err := p2p.New[testkit.World](cfg, c.reopenNode(p3), testkit.Simulate)
	require.NoError(t, err)
	p3.p, p3.events, p3.paused = q, nil, false
	r3 := c.rejoinedAll(p3, 3, frames)
	for _, m := range c.nodes[:3] {
		_, err := m.p.PeerStats(transport.Peer(p3.name))
		require.NoError(t, err, "seed %d: %s knows p3 by its new address", seed, m.name)
	}

	c.runTo(frames*3/5, frames*2, 0.2)
	// p2 drops for 3 s and comes back in the same session.
	p2 := c.nodes[2]
	c.dropNode(p2)
	for range 3 * 60 {
		c.tick(0.2)
	}
	require.NoError(t, p2.p.Rejoin(c.reopenNode(p2)))
	p2.paused = false
	r1 := c.rejoinedAll(p2, 2, frames)

	c.runTo(frames, frames*3, 0.2)
	for _, n := range c.nodes {
		require.False(t, n.has(rollnet.EventDesyncDetected), "seed %d: %s: %v", seed, n.name, n.events)
	}
	t.Logf("seed %d: p3 back at %d (replayed %d in %v), p2 back at %d (replayed %d in %v); %d comparisons; %s",
		seed, r3, p3.p.RejoinStats().Replayed, p3.p.RejoinStats().CatchUp, r1, p2.p.RejoinStats().Replayed,
		p2.p.RejoinStats().CatchUp, c.agreed(), c.describe())
}

// dropNode closes n's endpoint and stops its loop. The frames it
// confirmed last may have its own inputs past the frame the others will
// freeze it at: they are forgotten, not compared.
func (c *pCluster) dropNode(n *pNode) {
	require.NoError(c.t, c.eps[n.player].Close())
	n.paused = true
	for f := n.checked - 200; f <= n.checked; f++ {
		c.sums.Forget(f)
	}
}

// reopenNode opens a new endpoint under n's name (a new one if the test
// renamed it).
func (c *pCluster) reopenNode(n *pNode) transport.Transport {
	ep, err := c.net.Endpoint(n.name)
	require.NoError(c.t, err)
	c.eps[n.player] = ep
	return ep
}

// cfgOf rebuilds player i's config, as newPCluster made it, with a fresh
// nonce stream.
func (c *pCluster) cfgOf(i int) p2p.Config[uint16] {
	cfg := c.cfgs[i]
	cfg.Net.Tuning.Rand = rand.New(rand.NewPCG(c.seed, 1000+uint64(i))).Uint64
	return cfg
}

// rejoinedAll ticks until every player node saw player rejoin, checks they
// agree on R, and returns it. n's frames are compared again from those its
// replay still holds.
func (c *pCluster) rejoinedAll(n *pNode, player, limit int) rollnet.Frame {
	c.t.Helper()
	n.checked = 1 << 30
	last := func(m *pNode, k rollnet.EventKind) (rollnet.Frame, bool) {
		var f rollnet.Frame
		ok := false
		for _, e := range m.events {
			if e.Kind == k && e.Player == player {
				f, ok = e.Frame, true
			}
		}
		return f, ok
	}
	for range limit {
		c.tick(0.2)
		done := true
		for _, m := range c.nodes {
			if _, ok := last(m, rollnet.EventPlayerRejoined); m.p != nil && !ok {
				done = false
			}
		}
		if !done {
			continue
		}
		n.checked = n.p.Frame() - 8
		r, _ := last(n, rollnet.EventPlayerRejoined)
		for _, m := range c.nodes {
			if m.p == nil {
				continue
			}
			for _, k := range []rollnet.EventKind{rollnet.EventPlayerRejoining, rollnet.EventPlayerRejoined} {
				f, ok := last(m, k)
				require.True(c.t, ok, "seed %d: %s: no %v", c.seed, m.name, k)
				require.Equal(c.t, r, f, "seed %d: %s: %v at another frame", c.seed, m.name, k)
			}
		}
		return r
	}
	c.t.Fatalf("seed %d: player %d not back everywhere after %d ticks: %s", c.seed, player, limit, fmt.Sprint(c.describe()))
	return 0
}
