package torture

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// T5: four players and two spectators over a hostile network, 20,000
// frames (times -torture.scale; 5,000 under -race).
//
// Every link jitters, loses packets independently and in bursts,
// duplicates and reorders them. Each player mashes inputs from its own
// seeded stream and follows the wait recommendations; two of the players
// host a spectator each. After every successful AdvanceFrame each node's
// newly confirmed frames are checksummed and compared with the first
// checksum any node recorded for that frame: every frame confirmed on two
// nodes must agree, spectators included, and nobody may report a desync or
// a disconnection.

// pNode is a player or a spectator of a torture cluster.
type pNode struct {
	name    string
	player  int
	p       *p2p.Session[testkit.World, uint16]
	s       *p2p.Spectator[testkit.World, uint16]
	rng     *rand.Rand
	in      uint16
	checked rollnet.Frame
	events  []rollnet.Event
	paused  bool
}

// pCluster runs nodes on a local network and a fake clock, comparing
// every confirmed frame's checksum across nodes.
type pCluster struct {
	t     testing.TB
	seed  uint64
	clock *local.Clock
	net   *local.Network
	nodes []*pNode
	eps   []transport.Transport // per player: its endpoint
	cfgs  []p2p.Config[uint16]  // per player: its config
	sums  *testkit.Agreement
	// compare, when false, skips the checksum comparison (T8 plants a
	// divergence on purpose).
	compare bool
}

type pOpts struct {
	players    int
	spectators int // hosted by players 0, 1, ...
	link       local.Link
	net        rollnet.NetConfig
	sim        func(player int) func(*testkit.World, []uint16, rollnet.Frame)
	wrap       func(player int, tr transport.Transport) transport.Transport
	archive    int  // p2p.Config.SpectatorArchive
	noRepair   bool // p2p.Config.NoRepair
}

func newPCluster(t testing.TB, seed uint64, o pOpts) *pCluster {
	t.Helper()
	clock, nw := testkit.NewNet(t, local.Config{Seed: seed, Link: o.link})
	c := &pCluster{t: t, seed: seed, clock: clock, net: nw, sums: testkit.NewAgreement(), compare: true}
	name := func(i int) transport.Peer { return transport.Peer(fmt.Sprintf("p%d", i)) }
	nc := o.net
	nc.Now = clock.Now
	for i := range o.players {
		ep, err := nw.Endpoint(string(name(i)))
		require.NoError(t, err)
		remote := make([]transport.Peer, o.players)
		for j := range remote {
			if j != i {
				remote[j] = name(j)
			}
		}
		var specs []transport.Peer
		if i < o.spectators {
			specs = []transport.Peer{transport.Peer(fmt.Sprintf("s%d", i))}
		}
		cfg := p2p.Config[uint16]{
			Session:          session.Config[uint16]{Players: o.players, InputDelay: 2, Capacity: 64},
			Remote:           remote,
			Spectators:       specs,
			Net:              nc,
			SpectatorArchive: o.archive,
			NoRepair:         o.noRepair,
		}
		cfg.Net.Tuning.Rand = rand.New(rand.NewPCG(seed, uint64(i))).Uint64
		var tr transport.Transport = ep
		if o.wrap != nil {
			tr = o.wrap(i, tr)
		}
		sim := testkit.Simulate
		if o.sim != nil {
			sim = o.sim(i)
		}
		p, err := p2p.New[testkit.World](cfg, tr, sim)
		require.NoError(t, err)
		c.eps, c.cfgs = append(c.eps, ep), append(c.cfgs, cfg)
		c.nodes = append(c.nodes, &pNode{name: string(name(i)), player: i, p: p,
			rng: rand.New(rand.NewPCG(seed, 100+uint64(i))), checked: 1})
	}
	for i := range o.spectators {
		sname := fmt.Sprintf("s%d", i)
		ep, err := nw.Endpoint(sname)
		require.NoError(t, err)
		snc := nc
		snc.Tuning.Rand = rand.New(rand.NewPCG(seed, 200+uint64(i))).Uint64
		s, err := p2p.NewSpectator[testkit.World, uint16](p2p.SpectatorConfig{Players: o.players, InputDelay: 2,
			Capacity: 64, Host: name(i), Net: snc}, ep, testkit.Simulate)
		require.NoError(t, err)
		c.nodes = append(c.nodes, &pNode{name: sname, s: s, checked: 1})
	}
	return c
}

// tick runs one game-loop tick of every node, then advances the clock.
func (c *pCluster) tick(mash float64) {
	for _, n := range c.nodes {
		if n.paused {
			continue
		}
		var err error
		if n.s != nil {
			err = n.s.AdvanceFrame()
			n.events = n.s.Events(n.events)
			if err == nil {
				c.record(n, n.s.Frame()-1, n.s)
			} else if !errors.Is(err, session.ErrPredictionLimit) && !errors.Is(err, p2p.ErrNotSynchronized) {
				c.t.Fatalf("seed %d: %s: %v", c.seed, n.name, err)
			}
			continue
		}
		if n.p.WaitRecommendation() > 0 {
			require.NoError(c.t, n.p.Poll())
			n.events = n.p.Events(n.events)
			continue
		}
		if n.rng.Float64() < mash {
			n.in = uint16(n.rng.Uint32())
		}
		require.NoError(c.t, n.p.AddLocalInput(n.player, n.in))
		err = n.p.AdvanceFrame()
		n.events = n.p.Events(n.events)
		if err == nil {
			c.record(n, min(n.p.ConfirmedFrame(), n.p.Frame()-1), n.p)
		} else if !errors.Is(err, session.ErrPredictionLimit) && !errors.Is(err, p2p.ErrNotSynchronized) {
			c.t.Fatalf("seed %d: %s: %v", c.seed, n.name, err)
		}
	}
	c.clock.Advance(time.Second / 60)
}

func (c *pCluster) record(n *pNode, upto rollnet.Frame, src testkit.Checksums) {
	if !c.compare {
		return
	}
	checked, err := c.sums.Through(n.name, src, n.checked, upto)
	n.checked = checked
	if err != nil {
		c.t.Fatalf("seed %d: %v", c.seed, err)
	}
	c.sums.Forget(upto - 4000)
}

// agreed counts the frames compared between two or more nodes.
func (c *pCluster) agreed() int { return c.sums.Agreed }

// runTo ticks until every unpaused player reached frame (or fails after
// limit ticks).
func (c *pCluster) runTo(frame int, limit int, mash float64) {
	for range limit {
		c.tick(mash)
		done := true
		for _, n := range c.nodes {
			if n.p != nil && !n.paused && int(n.p.Frame()) < frame {
				done = false
			}
		}
		if done {
			return
		}
	}
	c.t.Fatalf("seed %d: frame %d not reached in %d ticks: %s", c.seed, frame, limit, c.describe())
}

func (c *pCluster) describe() string {
	s := ""
	for _, n := range c.nodes {
		if n.p != nil {
			s += fmt.Sprintf("[%s frame %d confirmed %d] ", n.name, n.p.Frame(), n.p.ConfirmedFrame())
		} else {
			s += fmt.Sprintf("[%s frame %d] ", n.name, n.s.Frame())
		}
	}
	return s
}

func (n *pNode) has(k rollnet.EventKind) bool {
	for _, e := range n.events {
		if e.Kind == k {
			return true
		}
	}
	return false
}

// hostileLink is T5's network: 80 ± 40 ms, 3% loss plus bursts, 5%
// duplicates, 5% reordered.
var hostileLink = local.Link{
	Latency:   80 * time.Millisecond,
	Jitter:    40 * time.Millisecond,
	Loss:      0.03,
	Burst:     local.Burst{Enter: 0.01, Leave: 0.25},
	Duplicate: 0.05,
	Reorder:   0.05,
}

func TestT5P2PHostileNetwork(t *testing.T) {
	frames := scaled(20000)
	if race.Enabled {
		frames = scaled(5000)
	}
	c := newPCluster(t, baseSeed()+5, pOpts{players: 4, spectators: 2, link: hostileLink})
	c.runTo(frames, frames*3, 0.2)
	for _, n := range c.nodes {
		require.False(t, n.has(rollnet.EventDesyncDetected), "%s: %v", n.name, n.events)
		require.False(t, n.has(rollnet.EventDisconnected), "%s: %v", n.name, n.events)
		if n.s != nil {
			require.Greater(t, int(n.s.Frame()), frames-120, "spectator %s kept up", n.name)
		}
	}
	require.Greater(t, c.agreed(), frames*4, "frames compared between nodes")
	var rollbacks, depth int
	for _, n := range c.nodes[:4] {
		st := n.p.Stats()
		rollbacks += st.Rollbacks
		depth = max(depth, st.MaxRollbackDepth)
	}
	t.Logf("seed %d: %d frames, %d comparisons, %d rollbacks (deepest %d); %s", c.seed, frames, c.agreed(), rollbacks, depth, c.describe())
}

// T5, departures: the same cluster loses p3 (silent: a crash) a fifth of
// the way in and p2 (Close: a notice) at two fifths, over the hostile
// network. The survivors must report each departed player frozen from the
// same frame, keep agreeing with each other and the spectators to the end,
// and never stall for good.
func TestT5P2PHostileNetworkDepartures(t *testing.T) {
	frames := scaled(10000)
	if race.Enabled {
		frames = scaled(3000)
	}
	c := newPCluster(t, baseSeed()+55, pOpts{players: 4, spectators: 2, link: hostileLink})
	c.runTo(frames/5, frames, 0.2)
	c.nodes[3].paused = true
	c.runTo(frames*2/5, frames*2, 0.2)
	require.NoError(t, c.nodes[2].p.Close())
	c.nodes[2].paused = true
	c.runTo(frames, frames*3, 0.2)
	for _, pl := range []int{2, 3} {
		var frozen rollnet.Frame = -2
		for _, n := range c.nodes[:2] {
			var got rollnet.Frame = -2
			for _, e := range n.events {
				if e.Kind == rollnet.EventPlayerDisconnected && e.Player == pl {
					got = e.Frame
				}
			}
			require.NotEqual(t, rollnet.Frame(-2), got, "seed %d: %s never froze player %d", c.seed, n.name, pl)
			if frozen == -2 {
				frozen = got
			}
			require.Equal(t, frozen, got, "seed %d: %s froze player %d from another frame", c.seed, n.name, pl)
		}
		t.Logf("seed %d: player %d frozen after frame %d", c.seed, pl, frozen)
	}
	for _, n := range c.nodes {
		require.False(t, n.has(rollnet.EventDesyncDetected), "%s: %v", n.name, n.events)
		if n.s != nil {
			require.Greater(t, int(n.s.Frame()), frames-150, "spectator %s kept up", n.name)
		}
	}
	t.Logf("seed %d: %d comparisons; %s", c.seed, c.agreed(), c.describe())
}
