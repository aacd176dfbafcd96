package p2p

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// p2pWorld is the P2P tests' game (the test kit's).
type p2pWorld = testkit.World

var simP2P = testkit.Simulate

var p2pEpoch = testkit.Epoch

// p2pNode is one peer (or spectator) of a test cluster.
type p2pNode struct {
	name    string
	ep      local.Endpoint
	p       *Session[p2pWorld, uint16]
	s       *Spectator[p2pWorld, uint16]
	locals  []int
	rng     *rand.Rand
	in      []uint16
	mash    float64 // probability an input changes on a frame
	events  []rollnet.Event
	checked rollnet.Frame // newest frame whose checksum was recorded
	period  time.Duration // tick period
	next    time.Time     // next tick
	paused  bool
	follow  bool // follow wait recommendations
	waited  int
}

// p2pCluster is players and spectators on one local network, on a fake
// clock.
type p2pCluster struct {
	t        testing.TB
	clock    *local.Clock
	net      *local.Network
	nodes    []*p2pNode
	sums     *testkit.Agreement // every confirmed frame's checksum, compared across nodes
	noSums   bool               // do not compare (desync tests)
	keepSums bool               // keep every frame's checksum (late spectators)
	loops    []testkit.Loop     // the nodes' game loops, for testkit.Run
}

// agreed counts the frames compared between two or more nodes.
func (c *p2pCluster) agreed() int { return c.sums.Agreed }

// p2pLoop is a node's game loop in its cluster.
type p2pLoop struct {
	c *p2pCluster
	n *p2pNode
}

func (l *p2pLoop) Next() (time.Time, bool) { return l.n.next, true }

func (l *p2pLoop) Tick() {
	l.c.tickNode(l.n)
	l.n.next = l.n.next.Add(l.n.period)
}

type clusterOpts struct {
	players    int
	perPeer    int // players per peer (1 unless set)
	spectators int
	seed       uint64
	link       local.Link
	cfg        session.Config[uint16]
	net        rollnet.NetConfig
	mash       float64
	mutate     func(i int, c *Config[uint16])
	sim        func(i int) func(*p2pWorld, []uint16, rollnet.Frame) // per node; nil: simP2P
	wrap       func(i int, tr transport.Transport) transport.Transport
}

func newCluster(t testing.TB, o clusterOpts) *p2pCluster {
	t.Helper()
	clock, nw := testkit.NewNet(t, local.Config{Seed: o.seed, Link: o.link})
	c := &p2pCluster{t: t, clock: clock, net: nw, sums: testkit.NewAgreement()}
	if o.perPeer == 0 {
		o.perPeer = 1
	}
	peers := (o.players + o.perPeer - 1) / o.perPeer
	name := func(i int) transport.Peer { return transport.Peer(fmt.Sprintf("p%d", i)) }
	var specs []transport.Peer
	for i := range o.spectators {
		specs = append(specs, transport.Peer(fmt.Sprintf("s%d", i)))
	}
	nc := o.net
	if nc.Now == nil {
		nc.Now = clock.Now
	}
	for i := range peers {
		ep, err := nw.Endpoint(string(name(i)))
		require.NoError(t, err)
		cfg := Config[uint16]{Session: o.cfg, Net: nc}
		cfg.Session.Players = o.players
		n := &p2pNode{name: string(name(i)), ep: ep, rng: rand.New(rand.NewPCG(o.seed, uint64(i))), mash: o.mash,
			checked: rollnet.Frame(o.cfg.InputDelay) - 1, period: time.Second / 60, next: p2pEpoch, follow: true}
		for pl := range o.players {
			if pl/o.perPeer == i {
				cfg.Remote = append(cfg.Remote, "")
				n.locals = append(n.locals, pl)
			} else {
				cfg.Remote = append(cfg.Remote, name(pl/o.perPeer))
			}
		}
		if i == 0 {
			cfg.Spectators = specs
		}
		seed := o.seed*100 + uint64(i)
		r := rand.New(rand.NewPCG(seed, 7))
		cfg.Net.Tuning.Rand = r.Uint64
		if o.mutate != nil {
			o.mutate(i, &cfg)
		}
		sim := simP2P
		if o.sim != nil {
			sim = o.sim(i)
		}
		var tr transport.Transport = ep
		if o.wrap != nil {
			tr = o.wrap(i, tr)
		}
		n.p, err = New[p2pWorld](cfg, tr, sim)
		require.NoError(t, err)
		n.in = make([]uint16, o.players)
		c.nodes = append(c.nodes, n)
	}
	for i, s := range specs {
		ep, err := nw.Endpoint(string(s))
		require.NoError(t, err)
		nc := nc
		r := rand.New(rand.NewPCG(o.seed, 1000+uint64(i)))
		nc.Tuning.Rand = r.Uint64
		sp, err := NewSpectator[p2pWorld, uint16](SpectatorConfig{Players: o.players, InputDelay: o.cfg.InputDelay,
			Capacity: 64, FastForward: 32, Host: name(0), Net: nc}, ep, simP2P)
		require.NoError(t, err)
		c.nodes = append(c.nodes, &p2pNode{name: string(s), ep: ep, s: sp, checked: rollnet.Frame(o.cfg.InputDelay) - 1,
			period: time.Second / 60, next: p2pEpoch})
	}
	return c
}

// tickNode runs one game-loop tick of n.
func (c *p2pCluster) tickNode(n *p2pNode) {
	if n.paused {
		return
	}
	if n.s != nil {
		err := n.s.AdvanceFrame()
		if err != nil && !errors.Is(err, ErrNotSynchronized) && !errors.Is(err, session.ErrPredictionLimit) && !errors.Is(err, ErrHostGone) {
			c.t.Fatalf("%s: %v", n.name, err)
		}
		n.events = n.s.Events(n.events)
		if err == nil {
			c.record(n, n.s.Frame()-1, n.s.core)
		}
		return
	}
	p := n.p
	var err error = ErrNotSynchronized
	if n.follow && p.WaitRecommendation() > 0 {
		n.waited++
		require.NoError(c.t, p.Poll())
	} else {
		for _, pl := range n.locals {
			if n.rng.Float64() < n.mash {
				n.in[pl] = uint16(n.rng.Uint32())
			}
			require.NoError(c.t, p.AddLocalInput(pl, n.in[pl]))
		}
		err = p.AdvanceFrame()
		if err != nil && !errors.Is(err, ErrNotSynchronized) && !errors.Is(err, session.ErrPredictionLimit) &&
			!errors.Is(err, ErrAwaiting) && !errors.Is(err, ErrForfeited) {
			c.t.Fatalf("%s: %v", n.name, err)
		}
	}
	n.events = p.Events(n.events)
	if err == nil { // checksums are answerable after a AdvanceFrame only
		c.record(n, min(p.ConfirmedFrame(), p.Frame()-1), p.core)
	}
}

// record compares n's checksums of newly confirmed frames with the first
// recorded for each frame.
func (c *p2pCluster) record(n *p2pNode, upto rollnet.Frame, core *session.Session[p2pWorld, uint16]) {
	if c.noSums {
		return
	}
	checked, err := c.sums.Through(n.name, core, n.checked, upto)
	n.checked = checked
	if err != nil {
		st, _ := core.StateAt(checked + 1)
		c.t.Fatalf("%v (frame %d, confirmed %d, state %+v)", err, core.Frame(), core.ConfirmedFrame(), st)
	}
	// Keep the maps small.
	if !c.keepSums {
		c.sums.Forget(upto - 2000)
	}
}

// run advances the clock tick by tick, each node at its own period, for
// d (a tick due at the end runs next time).
func (c *p2pCluster) run(d time.Duration) {
	c.loops = c.loops[:min(len(c.loops), len(c.nodes))]
	for i, n := range c.nodes { // tests add, remove and replace nodes
		if i == len(c.loops) {
			c.loops = append(c.loops, &p2pLoop{c: c, n: n})
		} else if l := c.loops[i].(*p2pLoop); l.n != n {
			c.loops[i] = &p2pLoop{c: c, n: n}
		}
	}
	testkit.Run(c.clock, c.clock.Now().Add(d), false, c.loops)
}

// frames runs until every player node has simulated at least frames frames
// (or the time limit passes).
func (c *p2pCluster) frames(frames int, limit time.Duration) {
	end := c.clock.Now().Add(limit)
	for c.clock.Now().Before(end) {
		c.run(time.Second / 60)
		done := true
		for _, n := range c.nodes {
			if n.p != nil && !n.paused && int(n.p.Frame()) < frames {
				done = false
			}
		}
		if done {
			return
		}
	}
	c.t.Fatalf("not %d frames after %v: %s", frames, limit, c.describe())
}

func (c *p2pCluster) describe() string {
	s := ""
	for _, n := range c.nodes {
		if n.p != nil {
			s += fmt.Sprintf("[%s frame %d confirmed %d running %v] ", n.name, n.p.Frame(), n.p.ConfirmedFrame(), n.p.running)
		} else {
			s += fmt.Sprintf("[%s frame %d recv %d] ", n.name, n.s.Frame(), n.s.recv)
		}
	}
	return s
}

// node returns the node called name.
func (c *p2pCluster) node(name string) *p2pNode {
	for _, n := range c.nodes {
		if n.name == name {
			return n
		}
	}
	c.t.Fatalf("no node %s", name)
	return nil
}

// until runs tick by tick until cond holds, or fails after limit.
func (c *p2pCluster) until(limit time.Duration, what string, cond func() bool) time.Time {
	end := c.clock.Now().Add(limit)
	for c.clock.Now().Before(end) {
		c.run(time.Second / 60)
		if cond() {
			return c.clock.Now()
		}
	}
	c.t.Fatalf("not %s after %v: %s", what, limit, c.describe())
	return time.Time{}
}

// first returns the first event of kind k n saw, and whether there is one.
func (n *p2pNode) first(k rollnet.EventKind) (rollnet.Event, bool) {
	for _, e := range n.events {
		if e.Kind == k {
			return e, true
		}
	}
	return rollnet.Event{}, false
}

// kinds returns the events of kind k n saw.
func (n *p2pNode) kinds(k rollnet.EventKind) []rollnet.Event {
	var out []rollnet.Event
	for _, e := range n.events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}
