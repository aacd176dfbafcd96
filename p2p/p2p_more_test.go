package p2p

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// When a peer goes quiet, AdvanceFrame refuses with session.ErrPredictionLimit
// once the prediction window is used up, and keeps polling and sending.
func TestP2PPredictionLimit(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 2, seed: 40, link: local.Link{Latency: 10 * time.Millisecond},
		cfg: session.Config[uint16]{InputDelay: 2, Capacity: 16, MaxPrediction: 8}})
	c.frames(60, 10*time.Second)
	a, b := c.nodes[0], c.nodes[1]
	b.paused = true
	f := a.p.Frame()
	st0, _ := a.p.PeerStats("p1")
	var refused int
	for range 60 {
		a.p.AddLocalInput(0, 1)
		err := a.p.AdvanceFrame()
		if errors.Is(err, session.ErrPredictionLimit) {
			refused++
		} else {
			require.NoError(t, err)
		}
		c.clock.Advance(time.Second / 60)
	}
	require.LessOrEqual(t, int(a.p.Frame()-a.p.ConfirmedFrame()), 9)
	require.Less(t, int(a.p.Frame()-f), 12, "stopped within the window")
	require.Greater(t, refused, 45)
	st1, _ := a.p.PeerStats("p1")
	require.GreaterOrEqual(t, st1.PacketsSent-st0.PacketsSent, uint64(60), "still sending every tick")
	require.InDelta(t, 10, st1.UnackedFrames, 2, "its inputs wait unacknowledged")
	// b comes back: a catches up, and they agree.
	b.paused = false
	c.frames(int(a.p.Frame())+120, 10*time.Second)
}

// A spectator that falls behind catches up several frames per tick; its
// pause and its departure never stall the players.
func TestP2PSpectatorCatchUpAndDeparture(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 2, spectators: 1, seed: 41, mash: 0.2,
		link: local.Link{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond},
		cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 32}})
	c.frames(120, 10*time.Second)
	spec := c.node("s0")
	spec.paused = true
	f := c.nodes[0].p.Frame()
	c.run(time.Second)
	require.GreaterOrEqual(t, int(c.nodes[0].p.Frame()-f), 58, "players go on while the spectator is paused")
	spec.paused = false
	before := spec.s.Frame()
	require.Greater(t, int(c.nodes[0].p.Frame()-before), 58, "a second behind")
	c.run(time.Second / 60)
	require.Equal(t, 32, int(spec.s.Frame()-before), "caught up FastForward frames in a tick")
	c.until(3*time.Second, "spectator caught up", func() bool { return spec.s.Behind() < 4 })

	// The spectator leaves for good: the host drops it, the players go on.
	spec.paused = true
	f = c.nodes[0].p.Frame()
	left := c.clock.Now()
	at := c.until(7*time.Second, "spectator dropped", func() bool {
		st, _ := c.nodes[0].p.PeerStats("s0")
		return st.Disconnected
	})
	// Dropped at the timeout, or sooner when it fell further behind than the
	// host keeps inputs for; the players never waited.
	require.LessOrEqual(t, at.Sub(left), 5*time.Second+50*time.Millisecond)
	require.Greater(t, int(c.nodes[0].p.Frame()-f), int(at.Sub(left).Seconds()*60)-3)
	f = c.nodes[0].p.Frame()
	c.run(time.Second)
	require.Greater(t, int(c.nodes[0].p.Frame()-f), 57)
}

// PeerStats: the round-trip time, frame advantages, byte rates.
func TestP2PPeerStats(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 2, seed: 42, mash: 0.5, link: local.Link{Latency: 50 * time.Millisecond},
		cfg: session.Config[uint16]{InputDelay: 2, Capacity: 32}})
	c.frames(300, 20*time.Second)
	st, err := c.nodes[0].p.PeerStats("p1")
	require.NoError(t, err)
	// 100 ms on the wire, plus up to a tick of waiting on each side to be
	// read: 133 ms on this harness.
	require.InDelta(t, 117*time.Millisecond, st.RTT, float64(20*time.Millisecond), "rtt %v", st.RTT)
	require.True(t, st.Synchronized)
	require.False(t, st.Interrupted || st.Disconnected)
	require.InDelta(t, 0, st.LocalFrameAdvantage, 2)
	require.InDelta(t, 0, st.RemoteFrameAdvantage, 2)
	require.Positive(t, st.SendBytesPerSecond)
	require.Positive(t, st.ReceiveBytesPerSecond)
	require.LessOrEqual(t, st.UnackedFrames, 10)
	require.Zero(t, st.Malformed)
	require.Positive(t, st.PacketsReceived)
}

// Close sends a notice: the peer drops the leaver at once (twice the
// keep-alive) instead of after the timeout.
func TestP2PClose(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 2, seed: 43, link: local.Link{Latency: 20 * time.Millisecond}})
	c.frames(60, 10*time.Second)
	b := c.nodes[1]
	require.NoError(t, b.p.Close())
	require.NoError(t, b.p.Close())
	b.paused = true
	require.ErrorIs(t, b.p.AdvanceFrame(), rollnet.ErrClosed)
	require.ErrorIs(t, b.p.AddLocalInput(1, 0), rollnet.ErrClosed)
	closed := c.clock.Now()
	at := c.until(2*time.Second, "disconnected", func() bool { _, ok := c.nodes[0].first(rollnet.EventDisconnected); return ok })
	require.Less(t, at.Sub(closed), 500*time.Millisecond)
}

// Bad arguments and configs get clear errors.
func TestP2PConfigErrors(t *testing.T) {
	nw, err := local.NewNetwork(local.Config{})
	require.NoError(t, err)
	ep, err := nw.Endpoint("me")
	require.NoError(t, err)
	base := func() Config[uint16] {
		return Config[uint16]{Session: session.Config[uint16]{Players: 2}, Remote: []transport.Peer{"", "you"}}
	}
	bad := map[string]func(c *Config[uint16]){
		"remote length":   func(c *Config[uint16]) { c.Remote = c.Remote[:1] },
		"no local":        func(c *Config[uint16]) { c.Remote[0] = "him" },
		"self":            func(c *Config[uint16]) { c.Remote[1] = "me" },
		"spectator twice": func(c *Config[uint16]) { c.Spectators = []transport.Peer{"s", "s"} },
		"spectator plays": func(c *Config[uint16]) { c.Spectators = []transport.Peer{"you"} },
		"spectators": func(c *Config[uint16]) {
			for i := range MaxSpectators + 1 {
				c.Spectators = append(c.Spectators, transport.Peer(fmt.Sprint("s", i)))
			}
		},
		"archive":    func(c *Config[uint16]) { c.SpectatorArchive = -1 },
		"frame rate": func(c *Config[uint16]) { c.Net.FrameRate = -1 },
		"timeouts":   func(c *Config[uint16]) { c.Net.DisconnectNotify = time.Hour },
		"players":    func(c *Config[uint16]) { c.Session.Players = 0; c.Remote = nil },
		"core":       func(c *Config[uint16]) { c.Session.Capacity = 3 },
	}
	for name, mutate := range bad {
		cfg := base()
		mutate(&cfg)
		_, err := New[p2pWorld](cfg, ep, simP2P)
		require.ErrorIs(t, err, rollnet.ErrConfig, name)
	}
	_, err = New[p2pWorld](base(), nil, simP2P)
	require.ErrorIs(t, err, rollnet.ErrConfig)
	p, err := New[p2pWorld](base(), ep, simP2P)
	require.NoError(t, err)
	require.ErrorIs(t, p.AddLocalInput(1, 0), ErrNotLocal)
	require.ErrorIs(t, p.AddLocalInput(5, 0), session.ErrPlayer)
	require.ErrorIs(t, p.AdvanceFrame(), ErrNotSynchronized)
	_, err = NewSpectator[p2pWorld, uint16](SpectatorConfig{Players: 2, Host: "me"}, ep, simP2P)
	require.ErrorIs(t, err, rollnet.ErrConfig)
}

// Several players behind one peer, and two spectators on one host.
func TestP2PPlayersPerPeer(t *testing.T) {
	for _, o := range []clusterOpts{
		{players: 3, perPeer: 2, spectators: 2},
		{players: 4, perPeer: 2, spectators: 1},
		{players: 6, perPeer: 2},
	} {
		o.seed = 44
		o.mash = 0.3
		o.link = local.Link{Latency: 60 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02, Duplicate: 0.02, Reorder: 0.02}
		o.cfg = session.Config[uint16]{InputDelay: 2, Capacity: 64}
		c := newCluster(t, o)
		c.frames(900, time.Minute)
		require.Greater(t, c.agreed(), 900*o.players/o.perPeer/2, "%+v", o)
		for _, n := range c.nodes {
			if n.s != nil {
				require.Greater(t, int(n.s.Frame()), 850, n.name)
			}
		}
	}
}
