package authority

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// world is the tests' game (the test kit's Arena): a position per player
// moved by its input, and accumulators that mix every input, so a wrong
// input on any frame shows in the state.
type world = testkit.Arena

var simWorld = testkit.SimulateArena

var epoch = testkit.Epoch

const tick = time.Second / 60

// node is one client of a test world.
type node struct {
	name   string
	ep     local.Endpoint
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
	hep    local.Endpoint
	h      *Host[world, uint16]
	hnext  time.Time
	hinput func(f rollnet.Frame) uint16 // the host's local player, if any
	nodes  []*node
	sums   *testkit.Agreement // the host's checksum of every frame
	loops  []testkit.Loop     // the host's and the clients' game loops
	// checked counts client host-states compared with the host's.
	checked int
	// noCheck skips the comparison (a host that rolls back changes old
	// frames).
	noCheck bool
	wrap    func(name string, tr transport.Transport) transport.Transport
	// afterHost, if set, runs after each host tick, with the frame
	// simulated.
	afterHost func(f rollnet.Frame)
	// afterClient, if set, runs after each client tick.
	afterClient func(nd *node)
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
	clock, n := testkit.NewNet(t, local.Config{Seed: o.seed, Link: o.link, QueueLen: o.queue})
	hep, err := n.Endpoint("host")
	require.NoError(t, err)
	hc := o.host
	hc.Players, hc.LocalPlayers = o.players, o.locals
	hc.Net.Now = clock.Now
	seed := o.seed
	hc.Net.Tuning.Rand = func() uint64 { seed = seed*6364136223846793005 + 1442695040888963407; return seed }
	var tr transport.Transport = hep
	if o.wrap != nil {
		tr = o.wrap("host", tr)
	}
	h, err := NewHost(hc, tr, simWorld)
	require.NoError(t, err)
	c := &cluster{t: t, clock: clock, net: n, hep: hep, h: h, hnext: epoch, sums: testkit.NewAgreement(), wrap: o.wrap}
	c.loops = []testkit.Loop{hostLoop{c}}
	return c
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
	cfg.Net.Tuning.Rand = func() uint64 { seed = seed*6364136223846793005 + 1442695040888963407; return seed }
	var tr transport.Transport = ep
	if c.wrap != nil {
		tr = c.wrap(name, tr)
	}
	cl, err := NewClient[world, uint16](cfg, tr, simWorld)
	require.NoError(c.t, err)
	nd := &node{name: name, ep: ep, c: cl, input: input, next: c.clock.Now(), seen: rollnet.NoFrame, joinAt: c.clock.Now()}
	c.nodes = append(c.nodes, nd)
	c.loops = append(c.loops, clientLoop{c, nd})
	return nd
}

// run advances fake time by d, ticking the host at its rate and each client
// at its own (its clock skew and the host's advised time scale).
func (c *cluster) run(d time.Duration) {
	c.t.Helper()
	testkit.Run(c.clock, c.clock.Now().Add(d), true, c.loops)
}

// hostLoop is the host's game loop.
type hostLoop struct{ c *cluster }

func (l hostLoop) Next() (time.Time, bool) { return l.c.hnext, true }
func (l hostLoop) Tick()                   { l.c.hostTick() }

// clientLoop is a client's game loop; a client cut off does not tick.
type clientLoop struct {
	c  *cluster
	nd *node
}

func (l clientLoop) Next() (time.Time, bool) { return l.nd.next, !l.nd.cut }
func (l clientLoop) Tick()                   { l.c.clientTick(l.nd) }

func (c *cluster) hostTick() {
	f := c.h.Frame()
	if c.hinput != nil {
		require.NoError(c.t, c.h.AddLocalInput(0, c.hinput(f)))
	}
	require.NoError(c.t, c.h.AdvanceFrame())
	c.hnext = c.hnext.Add(tick)
	if c.h.Frame() == f {
		return // a lobby (HostConfig.WaitForPlayers), or a hold (HostConfig.Absence): nothing simulated
	}
	if c.afterHost != nil {
		c.afterHost(f)
	}
	sum, err := c.h.ChecksumAt(f)
	require.NoError(c.t, err)
	_, ok := c.sums.Check(f, sum)
	require.True(c.t, ok, "host: frame %d simulated twice, differently", f)
}

func (c *cluster) clientTick(nd *node) {
	cl := nd.c
	if cl.Synchronized() && nd.input != nil {
		require.NoError(c.t, cl.AddLocalInput(0, nd.input(cl.Frame())))
	}
	require.NoError(c.t, cl.AdvanceFrame())
	if s, f := cl.HostState(); f > nd.seen && !c.noCheck {
		nd.seen = f
		want, ok := c.sums.Sum(f)
		require.True(c.t, ok, "%s: host state %d the host never made", nd.name, f)
		require.Equal(c.t, want, rollback.Checksum(rollback.BytesOf(s)), "%s: host state %d differs from the host's", nd.name, f)
		c.checked++
	}
	if c.afterClient != nil {
		c.afterClient(nd)
	}
	period := float64(tick) / cl.timeScale() / (1 + nd.skew)
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
