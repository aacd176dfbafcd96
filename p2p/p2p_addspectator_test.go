package p2p

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// joinSpectator starts a spectator node called name watching host, ticking
// from now on, on ep (nil: a new endpoint called name).
func (c *p2pCluster) joinSpectator(name, host string, catchUp int, ep local.Endpoint) *p2pNode {
	c.t.Helper()
	var err error
	if ep == nil {
		ep, err = c.net.Endpoint(name)
		require.NoError(c.t, err)
	}
	nc := rollnet.NetConfig{Now: c.clock.Now, Tuning: rollnet.NetTuning{Rand: rand.New(rand.NewPCG(9, uint64(len(c.nodes)))).Uint64}}
	delay := c.nodes[0].p.delay
	sp, err := NewSpectator[p2pWorld, uint16](SpectatorConfig{Players: c.nodes[0].p.players, InputDelay: delay,
		Capacity: 64, FastForward: 32, Host: transport.Peer(host), CatchUp: catchUp, Net: nc}, ep, simP2P)
	require.NoError(c.t, err)
	n := &p2pNode{name: name, ep: ep, s: sp, checked: rollnet.Frame(delay) - 1, period: time.Second / 60, next: c.clock.Now()}
	c.nodes = append(c.nodes, n)
	return n
}

// A spectator added mid-match replays it from the start out of the
// archive, catches up, and agrees with the players on every frame (the
// cluster compares each of its checksums with the players').
func TestP2PAddSpectatorMidMatch(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 2, seed: 61, mash: 0.3, cfg: session.Config[uint16]{InputDelay: 2, Capacity: 32},
		link: local.Link{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02},
		mutate: func(i int, cfg *Config[uint16]) {
			if i == 0 {
				cfg.SpectatorArchive = 4096
			}
		}})
	host := c.nodes[0]
	start := host.p.hist.mask + 300 // past the input history
	c.frames(start, time.Minute)
	require.NoError(t, host.p.AddSpectator("late"))
	spec := c.joinSpectator("late", "p0", 16, nil)
	agreed := c.agreed()
	c.until(20*time.Second, "spectator caught up", func() bool { return int(spec.s.Frame()) > start && spec.s.Behind() < 4 })
	require.Greater(t, c.agreed()-agreed, start, "every frame the spectator simulated was compared")
	_, ok := host.first(rollnet.EventDisconnected)
	require.False(t, ok)
	st, err := host.p.PeerStats("late")
	require.NoError(t, err)
	require.True(t, st.Synchronized)
	require.Positive(t, st.ChecksumsAgreed)
	require.Equal(t, st.ChecksumsCompared, st.ChecksumsAgreed)
}

// Without an archive, a spectator can be added only while the input
// history still holds the first frames; after that, or once the match
// outgrew the archive, AddSpectator refuses with ErrSpectatorLate.
func TestP2PAddSpectatorLate(t *testing.T) {
	for _, archive := range []int{0, 600} {
		t.Run(fmt.Sprintf("archive %d", archive), func(t *testing.T) {
			c := newCluster(t, clusterOpts{players: 2, seed: 62, mash: 0.3, cfg: session.Config[uint16]{InputDelay: 2, Capacity: 32},
				link:   local.Link{Latency: 20 * time.Millisecond},
				mutate: func(i int, cfg *Config[uint16]) { cfg.SpectatorArchive = archive }})
			host := c.nodes[0]
			c.frames(120, 10*time.Second)
			require.NoError(t, host.p.AddSpectator("early"))
			early := c.joinSpectator("early", "p0", 0, nil)
			c.frames(archive+host.p.hist.mask+200, time.Minute)
			require.ErrorIs(t, host.p.AddSpectator("late"), ErrSpectatorLate)
			require.Greater(t, int(early.s.Frame()), archive+host.p.hist.mask, "the early one kept up")
			_, ok := host.first(rollnet.EventDisconnected)
			require.False(t, ok)
		})
	}
}

// AddSpectator's bounds: MaxSpectators, players' peers, duplicates,
// Close; a spectator that failed may be added again.
func TestP2PAddSpectatorErrors(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 2, spectators: 1, seed: 63, link: local.Link{Latency: 10 * time.Millisecond},
		net: rollnet.NetConfig{SyncTimeout: time.Second}})
	host := c.nodes[0]
	c.nodes[2].paused = true // s0 never answers: its handshake times out
	require.ErrorIs(t, host.p.AddSpectator("p1"), rollnet.ErrConfig)
	require.ErrorIs(t, host.p.AddSpectator("p0"), rollnet.ErrConfig)
	require.ErrorIs(t, host.p.AddSpectator("s0"), rollnet.ErrConfig, "live already")
	for i := 1; i < MaxSpectators; i++ {
		require.NoError(t, host.p.AddSpectator(transport.Peer(fmt.Sprintf("x%d", i))))
	}
	require.ErrorIs(t, host.p.AddSpectator("one too many"), ErrSpectatorLimit)

	c.run(2 * time.Second)
	e, ok := host.first(rollnet.EventSyncFailed)
	require.True(t, ok)
	require.EqualValues(t, "s0", e.Peer)
	require.NoError(t, host.p.AddSpectator("s0"), "failed: may join again")
	old := c.nodes[2]
	c.nodes = c.nodes[:2] // a new spectator joins on the old one's endpoint
	spec := c.joinSpectator("s0", "p0", 0, old.ep)
	c.until(5*time.Second, "s0 runs", func() bool { return spec.s.Frame() > host.p.Frame()-10 && host.p.Frame() > 200 })

	require.NoError(t, host.p.Close())
	require.ErrorIs(t, host.p.AddSpectator("z"), rollnet.ErrClosed)
}
