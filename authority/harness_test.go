package authority

import (
	"math/bits"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// world is the tests' game: a position per player moved by its input, and
// accumulators that mix every input, so a wrong input on any frame shows in
// the state.
type world struct {
	Pos   [8]int32
	Acc   [8]uint32
	H     uint64
	Frame int32
	NPC   int32 // a host entity moving at constant velocity
}

func simWorld(w *world, in []uint16, f rollnet.Frame) {
	for p, v := range in {
		w.Pos[p%8] += int32(int8(v))
		a := &w.Acc[p%8]
		*a = bits.RotateLeft32(*a^(uint32(v)+1)*0x9e3779b1, 7) + uint32(p+1)*0x85ebca6b
		w.H = (w.H ^ uint64(v) ^ uint64(p)<<16) * 1099511628211
	}
	w.Frame = int32(f)
	w.NPC += 5
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const tick = time.Second / 60

// node is one client of a test world.
type node struct {
	name   string
	ep     *local.Endpoint
	c      *Client[world, uint16]
	input  func(f rollnet.Frame) uint16 // nil: constant 0
	skew   float64                      // its clock runs this much fast (0.05: 5%)
	next   time.Time
	seen   rollnet.Frame // newest host state checked
	cut    bool          // not ticking
	joinAt time.Time
	// hog, when above 0, makes the client's process starved now and then
	// (a CPU hog beside it): every 30th tick it is late by hog ticks, then
	// runs the ticks it owes back to back.
	hog, owed, ticks int
}

// cluster is a host and clients on one local network, on a fake clock.
type cluster struct {
	t      testing.TB
	clock  *local.Clock
	net    *local.Network
	hep    *local.Endpoint
	h      *Host[world, uint16]
	hnext  time.Time
	hinput func(f rollnet.Frame) uint16 // the host's local player, if any
	nodes  []*node
	sums   map[rollnet.Frame]uint32
	// checked counts client host-states compared with the host's.
	checked int
	// noCheck skips the comparison (a host that rolls back changes old
	// frames).
	noCheck bool
	wrap    func(name string, tr transport.Transport) transport.Transport
	// afterHost, if set, runs after each host tick, with the frame
	// simulated.
	afterHost func(f rollnet.Frame)
}

type clusterOpts struct {
	seed    uint64
	players int
	locals  int
	host    HostConfig[uint16]
	link    local.Link
	queue   int
	// wrap, if set, wraps each endpoint's transport (the host's and each
	// client's, by name).
	wrap func(name string, tr transport.Transport) transport.Transport
}

func newCluster(t testing.TB, o clusterOpts) *cluster {
	t.Helper()
	clock := local.NewClock(epoch)
	n, err := local.NewNetwork(local.Config{Seed: o.seed, Now: clock.Now, Link: o.link, QueueLen: o.queue})
	require.NoError(t, err)
	hep, err := n.Endpoint("host")
	require.NoError(t, err)
	hc := o.host
	hc.Players, hc.LocalPlayers = o.players, o.locals
	hc.Net.Now = clock.Now
	seed := o.seed
	hc.Net.Rand = func() uint64 { seed = seed*6364136223846793005 + 1442695040888963407; return seed }
	var tr transport.Transport = hep
	if o.wrap != nil {
		tr = o.wrap("host", tr)
	}
	h, err := NewHost(hc, tr, simWorld)
	require.NoError(t, err)
	return &cluster{t: t, clock: clock, net: n, hep: hep, h: h, hnext: epoch, sums: map[rollnet.Frame]uint32{}, wrap: o.wrap}
}

// add adds a client named name that joins at the current time.
func (c *cluster) add(name string, cfg ClientConfig, input func(rollnet.Frame) uint16) *node {
	c.t.Helper()
	ep, err := c.net.Endpoint(name)
	require.NoError(c.t, err)
	cfg.Host = "host"
	cfg.Players = c.h.s.players
	cfg.Net.Now = c.clock.Now
	seed := uint64(len(c.nodes) + 99)
	cfg.Net.Rand = func() uint64 { seed = seed*6364136223846793005 + 1442695040888963407; return seed }
	var tr transport.Transport = ep
	if c.wrap != nil {
		tr = c.wrap(name, tr)
	}
	cl, err := NewClient[world, uint16](cfg, tr, simWorld)
	require.NoError(c.t, err)
	nd := &node{name: name, ep: ep, c: cl, input: input, next: c.clock.Now(), seen: rollnet.NoFrame, joinAt: c.clock.Now()}
	c.nodes = append(c.nodes, nd)
	return nd
}

// run advances fake time by d, ticking the host at its rate and each client
// at its own (its clock skew and the host's advised time scale).
func (c *cluster) run(d time.Duration) {
	c.t.Helper()
	end := c.clock.Now().Add(d)
	for {
		at, who := c.hnext, -1
		for i, nd := range c.nodes {
			if !nd.cut && nd.next.Before(at) {
				at, who = nd.next, i
			}
		}
		if at.After(end) {
			c.clock.Set(end)
			return
		}
		c.clock.Set(at)
		if who < 0 {
			c.hostTick()
			continue
		}
		c.clientTick(c.nodes[who])
	}
}

func (c *cluster) hostTick() {
	f := c.h.Frame()
	if c.hinput != nil {
		require.NoError(c.t, c.h.AddLocalInput(0, c.hinput(f)))
	}
	require.NoError(c.t, c.h.AdvanceFrame())
	if c.afterHost != nil {
		c.afterHost(f)
	}
	sum, err := c.h.ChecksumAt(f)
	require.NoError(c.t, err)
	c.sums[f] = sum
	c.hnext = c.hnext.Add(tick)
}

func (c *cluster) clientTick(nd *node) {
	cl := nd.c
	if cl.Synchronized() && nd.input != nil {
		require.NoError(c.t, cl.AddLocalInput(0, nd.input(cl.Frame())))
	}
	require.NoError(c.t, cl.AdvanceFrame())
	if s, f := cl.HostState(); f > nd.seen && !c.noCheck {
		nd.seen = f
		want, ok := c.sums[f]
		require.True(c.t, ok, "%s: host state %d the host never made", nd.name, f)
		require.Equal(c.t, want, rollback.Checksum(rollback.BytesOf(s)), "%s: host state %d differs from the host's", nd.name, f)
		c.checked++
	}
	period := float64(tick) / cl.TimeScale() / (1 + nd.skew)
	nd.ticks++
	switch {
	case nd.hog > 0 && nd.ticks%30 == 0:
		period *= float64(1 + nd.hog)
		nd.owed = nd.hog
	case nd.owed > 0:
		nd.owed--
		period = 0
	}
	nd.next = nd.next.Add(time.Duration(period))
}

// record is the index of the host's record of the client named name.
func (c *cluster) record(name string) int {
	for i, hc := range c.h.clients {
		if hc.state != clientFree && string(hc.peer) == name {
			return i
		}
	}
	c.t.Fatalf("no record of %s", name)
	return -1
}
