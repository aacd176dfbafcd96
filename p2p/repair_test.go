package p2p

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// bigWorld is a 16 KiB state: the test kit's world and a pad the
// simulation writes through.
type bigWorld struct {
	W   testkit.World
	Pad [16384 - 32]byte
}

func simBig(w *bigWorld, in []uint16, f rollnet.Frame) {
	simP2P(&w.W, in, f)
	w.Pad[int(f)%len(w.Pad)] ^= byte(w.W.H)
}

// repairNode is one player peer of a repair test.
type repairNode struct {
	name   string
	p      *Session[bigWorld, uint16]
	locals []int
	rng    *rand.Rand
	in     []uint16
	events []rollnet.Event
	next   time.Time
	err    error // the first error AdvanceFrame returned that ends the match
	sums   *testkit.Agreement
	from   rollnet.Frame // checksums are compared from here on (NoFrame: not yet)
}

func (n *repairNode) Next() (time.Time, bool) { return n.next, n.err == nil }

func (n *repairNode) Tick() {
	n.next = n.next.Add(time.Second / 60)
	p := n.p
	var err error
	if p.WaitRecommendation() > 0 {
		err = p.Poll()
	} else {
		for _, pl := range n.locals {
			if n.rng.Float64() < 0.3 {
				n.in[pl] = uint16(n.rng.Uint32())
			}
			_ = p.AddLocalInput(pl, n.in[pl])
		}
		err = p.AdvanceFrame()
	}
	n.events = p.Events(n.events)
	switch {
	case err == nil:
		if n.from != rollnet.NoFrame {
			c, e := n.sums.Through(n.name, p.core, n.from, min(p.ConfirmedFrame(), p.Frame()-1))
			if e != nil {
				n.err = e
			}
			n.from = c
		}
	case errors.Is(err, ErrNotSynchronized), errors.Is(err, session.ErrPredictionLimit):
	default:
		n.err = err
	}
}

// repairCluster runs peers of bigWorld, one per player, whose node bad
// simulates frames [plant, plant+span) wrong (the fault hook).
type repairCluster struct {
	clock *local.Clock
	nodes []*repairNode
	loops []testkit.Loop
	sums  *testkit.Agreement
}

func newRepairCluster(t *testing.T, players, bad int, plant rollnet.Frame, span int, seed uint64, lk local.Link, mutate func(i int, c *Config[uint16])) *repairCluster {
	return newRepairClusterOn(t, players, bad, plant, span, seed, lk, nil, mutate)
}

// newRepairClusterOn is newRepairCluster, setting *net (when not nil) to
// its network.
func newRepairClusterOn(t *testing.T, players, bad int, plant rollnet.Frame, span int, seed uint64, lk local.Link, net **local.Network,
	mutate func(i int, c *Config[uint16])) *repairCluster {
	clock, nw := testkit.NewNet(t, local.Config{Seed: seed, Link: lk})
	if net != nil {
		*net = nw
	}
	rc := &repairCluster{clock: clock, sums: testkit.NewAgreement()}
	name := func(i int) transport.Peer { return transport.Peer(fmt.Sprintf("p%d", i)) }
	for i := range players {
		ep, err := nw.Endpoint(string(name(i)))
		require.NoError(t, err)
		cfg := Config[uint16]{Session: session.Config[uint16]{Players: players, InputDelay: 2, Capacity: 32},
			Net: rollnet.NetConfig{Now: clock.Now}}
		r := rand.New(rand.NewPCG(seed, uint64(i)+50))
		cfg.Net.Tuning.Rand = r.Uint64
		for pl := range players {
			if pl == i {
				cfg.Remote = append(cfg.Remote, "")
			} else {
				cfg.Remote = append(cfg.Remote, name(pl))
			}
		}
		if mutate != nil {
			mutate(i, &cfg)
		}
		sim := simBig
		if i == bad {
			sim = func(w *bigWorld, in []uint16, f rollnet.Frame) {
				simBig(w, in, f)
				if f >= plant && f < plant+rollnet.Frame(span) {
					w.W.Acc[1] += 3 // the fault
				}
			}
		}
		p, err := New[bigWorld](cfg, ep, sim)
		require.NoError(t, err)
		n := &repairNode{name: string(name(i)), p: p, locals: []int{i}, rng: rand.New(rand.NewPCG(seed, uint64(i))),
			in: make([]uint16, players), next: testkit.Epoch, sums: rc.sums, from: rollnet.NoFrame}
		rc.nodes = append(rc.nodes, n)
		rc.loops = append(rc.loops, n)
	}
	return rc
}

func (rc *repairCluster) run(d time.Duration) {
	testkit.Run(rc.clock, rc.clock.Now().Add(d), false, rc.loops)
}

// TestP2PRepair: one peer's simulation goes wrong for five frames (a fault
// in the test's simulation only); the peers agree on the truth, the
// diverged one takes its state and the match goes on, every later
// confirmed frame's checksum agreeing on every peer. A 16 KiB state at
// 60 Hz over 60 ± 10 ms one way with 3% loss is repaired within 500 ms of
// the desync found: with two peers (the arbiter, seat 0, or seat 1 when
// the game chooses it) and with three (the majority, even against seat
// 0).
func TestP2PRepair(t *testing.T) {
	const plant = 200
	lk := local.Link{Latency: 60 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.03}
	cases := []struct {
		name         string
		players, bad int
		arbiter      int
		from         int  // the seat the state comes from
		adaptive     bool // the input delay follows the network (Config.MaxInputDelay)
	}{
		{"two peers, seat 1 diverged", 2, 1, 0, 0, false},
		{"two peers, seat 0 diverged, arbiter seat 1", 2, 0, 1, 1, false},
		{"three peers, seat 2 diverged", 3, 2, 0, 0, false},
		{"three peers, seat 0 diverged: the majority", 3, 0, 0, 1, false},
		{"three peers, seat 1 diverged, adaptive delay", 3, 1, 0, 0, true},
	}
	for _, tc := range cases {
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/seed %d", tc.name, seed), func(t *testing.T) {
				rc := newRepairCluster(t, tc.players, tc.bad, plant, 5, seed, lk, func(i int, c *Config[uint16]) {
					c.Arbiter = tc.arbiter
					if tc.adaptive {
						c.MinInputDelay, c.MaxInputDelay = 1, 8
					}
				})
				bad := rc.nodes[tc.bad]
				var ev rollnet.Event
				for range 20 * 60 {
					rc.run(time.Second / 60)
					for _, n := range rc.nodes {
						require.NoError(t, n.err, n.name)
					}
					if e, ok := firstOf(bad.events, rollnet.EventDesyncRepaired); ok {
						ev = e
						break
					}
				}
				require.Equal(t, rollnet.EventDesyncRepaired, ev.Kind, "repaired")
				require.Equal(t, rollnet.Frame(plant), ev.Frame, "the desync's frame: the fault's first")
				require.Equal(t, fmt.Sprintf("p%d", tc.from), string(ev.Peer))
				require.Equal(t, tc.from, ev.Player)
				require.Contains(t, ev.Reason, "W.Acc[1]", "the field that differed is named")
				require.LessOrEqual(t, ev.Timeout, 500*time.Millisecond)
				t.Logf("%v", ev)
				// From now on every confirmed frame agrees on every peer.
				for _, n := range rc.nodes {
					n.from = min(n.p.ConfirmedFrame(), n.p.Frame()-1)
				}
				rc.run(10 * time.Second)
				for _, n := range rc.nodes {
					require.NoError(t, n.err, n.name)
					require.Greater(t, n.p.Frame(), rollnet.Frame(plant+500), "%s plays on", n.name)
					evs := kindsOf(n.events, rollnet.EventDesyncRepaired)
					require.Len(t, evs, 1, "%s: told once", n.name)
					if n != bad {
						require.Equal(t, bad.name, string(evs[0].Peer), "%s: healed with the peer repaired", n.name)
						require.Empty(t, evs[0].Reason)
						require.Equal(t, rollnet.Frame(plant), evs[0].Frame)
					}
				}
				require.Greater(t, rc.sums.Agreed, 500, "frames compared across peers after the repair")
				st, err := bad.p.PeerStats(ev.Peer)
				require.NoError(t, err)
				require.Equal(t, 1, st.RepairsTaken)
				st, err = rc.nodes[tc.from].p.PeerStats(transport.Peer(bad.name))
				require.NoError(t, err)
				require.Equal(t, 1, st.RepairsServed)
			})
		}
	}
}

// TestP2PRepairGivesUp: a peer whose simulation stays wrong is repaired
// maxRepairs times, then the match ends with the forensics line.
func TestP2PRepairGivesUp(t *testing.T) {
	lk := local.Link{Latency: 20 * time.Millisecond, Jitter: 2 * time.Millisecond}
	rc := newRepairCluster(t, 2, 1, 200, 1<<30, 9, lk, nil)
	bad := rc.nodes[1]
	for range 60 * 60 {
		rc.run(time.Second / 60)
		if bad.err != nil {
			break
		}
	}
	var se *rollnet.SyncError
	require.ErrorAs(t, bad.err, &se)
	require.Contains(t, se.Reason, "desync at frame")
	require.Contains(t, se.Reason, fmt.Sprintf("%d repairs in a row did not hold", maxRepairs))
	n := 0
	for _, e := range kindsOf(bad.events, rollnet.EventDesyncRepaired) {
		if e.Reason != "" {
			n++
		}
	}
	require.Equal(t, maxRepairs, n, "repaired as many times")
	t.Log(se)
}

// TestP2PNoRepair: with Config.NoRepair the desync is reported and nothing
// more (as before protocol 5); a peer that repairs and one that does not
// are refused at the handshake.
func TestP2PNoRepair(t *testing.T) {
	lk := local.Link{Latency: 20 * time.Millisecond}
	rc := newRepairCluster(t, 2, 1, 200, 5, 4, lk, func(i int, c *Config[uint16]) { c.NoRepair = true })
	rc.run(10 * time.Second)
	for _, n := range rc.nodes {
		require.NoError(t, n.err)
		require.Len(t, kindsOf(n.events, rollnet.EventDesyncDetected), 1, n.name)
		require.Empty(t, kindsOf(n.events, rollnet.EventDesyncRepaired), n.name)
	}
	a, _ := rc.nodes[0].p.ChecksumAt(rc.nodes[0].p.ConfirmedFrame())
	b, _ := rc.nodes[1].p.ChecksumAt(rc.nodes[0].p.ConfirmedFrame())
	require.NotEqual(t, a, b, "still apart")

	rc = newRepairCluster(t, 2, -1, 0, 0, 4, lk, func(i int, c *Config[uint16]) { c.NoRepair = i == 1 })
	rc.run(10 * time.Second)
	var se *rollnet.SyncError
	require.ErrorAs(t, rc.nodes[0].err, &se)
	require.Equal(t, link.ReasonSettings, se.Reason)
}

// TestP2PRepairAllocs: a tick with no repair under way allocates nothing,
// and neither does one that serves a state already taken.
func TestP2PRepairAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	lk := local.Link{Latency: 20 * time.Millisecond}
	rc := newRepairCluster(t, 2, -1, 0, 0, 4, lk, nil)
	rc.run(3 * time.Second)
	allocs := testing.AllocsPerRun(300, func() { rc.run(time.Second / 60) })
	require.Zero(t, allocs)
}

func firstOf(evs []rollnet.Event, k rollnet.EventKind) (rollnet.Event, bool) {
	for _, e := range evs {
		if e.Kind == k {
			return e, true
		}
	}
	return rollnet.Event{}, false
}

func kindsOf(evs []rollnet.Event, k rollnet.EventKind) []rollnet.Event {
	var out []rollnet.Event
	for _, e := range evs {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}
