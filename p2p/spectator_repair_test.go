package p2p

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// watchNode is a spectator of a repair test.
type watchNode struct {
	name   string
	s      *Spectator[bigWorld, uint16]
	events []rollnet.Event
	next   time.Time
	err    error
	sums   *testkit.Agreement
	from   rollnet.Frame // checksums are compared from here on (NoFrame: not yet)
}

func (n *watchNode) Next() (time.Time, bool) { return n.next, n.err == nil }

func (n *watchNode) Tick() {
	n.next = n.next.Add(time.Second / 60)
	err := n.s.AdvanceFrame()
	n.events = n.s.Events(n.events)
	switch {
	case err == nil, errors.Is(err, ErrNotSynchronized), errors.Is(err, session.ErrPredictionLimit):
		if n.from != rollnet.NoFrame {
			c, e := n.sums.Through(n.name, n.s, n.from, n.s.Frame()-1)
			if e != nil {
				n.err = e
			}
			n.from = c
		}
	default:
		n.err = err
	}
}

// watch adds to rc a spectator of the player of seat host (whose Config
// lists "s"), whose state is corrupted once, at frame plant (never when
// plant is NoFrame).
func (rc *repairCluster) watch(t *testing.T, nw *local.Network, host int, plant rollnet.Frame) *watchNode {
	ep, err := nw.Endpoint("s")
	require.NoError(t, err)
	hit := false
	sim := func(w *bigWorld, in []uint16, f rollnet.Frame) {
		simBig(w, in, f)
		if f == plant && !hit {
			hit = true
			w.W.Acc[1] += 3 // the fault: once (a repair simulates again past it)
		}
	}
	nc := rollnet.NetConfig{Now: rc.clock.Now, Tuning: rollnet.NetTuning{Rand: rand.New(rand.NewPCG(7, 7)).Uint64}}
	sp, err := NewSpectator[bigWorld, uint16](SpectatorConfig{Players: len(rc.nodes), InputDelay: 2, Capacity: 64,
		Host: transport.Peer(fmt.Sprintf("p%d", host)), Net: nc}, ep, sim)
	require.NoError(t, err)
	n := &watchNode{name: "s", s: sp, next: testkit.Epoch, sums: rc.sums, from: rollnet.NoFrame}
	rc.loops = append(rc.loops, n)
	return n
}

// TestP2PSpectatorRepair: a spectator whose state goes wrong takes its
// host's, the players' truth, and agrees with them afterwards on every
// frame, over 60 ± 10 ms one way with 3% loss; the players are not
// concerned (their host is told the spectator healed). A spectator whose
// host was the one apart is healed by the host's own repair, without
// asking.
func TestP2PSpectatorRepair(t *testing.T) {
	const plant = 200
	lk := local.Link{Latency: 60 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.03}
	cases := []struct {
		name               string
		players, host, bad int // bad: the player whose simulation goes wrong (-1: the spectator's)
		arbiter            int
	}{
		{"two players, spectator of seat 0", 2, 0, -1, 0},
		{"three players, spectator of seat 2", 3, 2, -1, 0},
		{"two players, its host diverged", 2, 0, 0, 1},
	}
	for _, tc := range cases {
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/seed %d", tc.name, seed), func(t *testing.T) {
				var nw *local.Network
				rc := newRepairClusterOn(t, tc.players, tc.bad, plant, 5, seed, lk, &nw, func(i int, c *Config[uint16]) {
					c.Arbiter = tc.arbiter
					if i == tc.host {
						c.Spectators = []transport.Peer{"s"}
					}
				})
				fault := rollnet.Frame(rollnet.NoFrame)
				if tc.bad < 0 {
					fault = plant
				}
				spec := rc.watch(t, nw, tc.host, fault)
				host := rc.nodes[tc.host]
				var ev rollnet.Event
				for range 20 * 60 {
					rc.run(time.Second / 60)
					for _, n := range rc.nodes {
						require.NoError(t, n.err, n.name)
					}
					require.NoError(t, spec.err)
					if e, ok := firstOf(spec.events, rollnet.EventDesyncRepaired); ok {
						ev = e
						break
					}
				}
				d, ok := firstOf(spec.events, rollnet.EventDesyncDetected)
				require.True(t, ok, "the spectator found it apart")
				require.Equal(t, rollnet.EventDesyncRepaired, ev.Kind, "repaired")
				require.Equal(t, d.Frame, ev.Frame)
				require.GreaterOrEqual(t, ev.Frame, rollnet.Frame(plant))
				require.Equal(t, host.name, string(ev.Peer))
				require.Equal(t, -1, ev.Player)
				taken := 1
				if tc.bad < 0 {
					require.Contains(t, ev.Reason, "W.Acc[1]", "the field that differed is named")
					require.LessOrEqual(t, ev.Timeout, time.Second)
				} else {
					require.Empty(t, ev.Reason, "healed by its host's repair")
					taken = 0
				}
				t.Logf("%v", ev)
				// From now on every frame the spectator simulates agrees
				// with the players' confirmed frames.
				for _, n := range rc.nodes {
					n.from = min(n.p.ConfirmedFrame(), n.p.Frame()-1)
				}
				spec.from = spec.s.Frame() - 1
				rc.run(time.Second) // (the checksums on their way before the repair arrive)
				before, err := host.p.PeerStats("s")
				require.NoError(t, err)
				rc.run(9 * time.Second)
				for _, n := range rc.nodes {
					require.NoError(t, n.err, n.name)
				}
				require.NoError(t, spec.err)
				require.Greater(t, spec.s.Frame(), rollnet.Frame(plant+500), "it plays on")
				require.Len(t, kindsOf(spec.events, rollnet.EventDesyncRepaired), 1, "told once")
				require.Greater(t, rc.sums.Agreed, 1000, "frames compared across nodes after the repair")
				require.Equal(t, taken, spec.s.PeerStats().RepairsTaken)
				st, err := host.p.PeerStats("s")
				require.NoError(t, err)
				require.LessOrEqual(t, st.RepairsServed, 1)
				require.GreaterOrEqual(t, st.RepairsServed, taken)
				require.Equal(t, before.ChecksumsCompared-before.ChecksumsAgreed, st.ChecksumsCompared-st.ChecksumsAgreed,
					"every checksum the host compared with the spectator's agreed after the repair")
				require.Greater(t, st.ChecksumsAgreed, before.ChecksumsAgreed+50)
				if tc.bad < 0 {
					for _, n := range rc.nodes {
						require.Empty(t, kindsOf(n.events, rollnet.EventDesyncRepaired)[min(1, len(kindsOf(n.events, rollnet.EventDesyncRepaired))):], n.name)
					}
					evs := kindsOf(host.events, rollnet.EventDesyncRepaired)
					require.Len(t, evs, 1, "the host is told the spectator healed")
					require.Equal(t, "s", string(evs[0].Peer))
					require.Equal(t, -1, evs[0].Player)
					for _, n := range rc.nodes {
						if n != host {
							require.Empty(t, kindsOf(n.events, rollnet.EventDesyncDetected), n.name)
						}
					}
				}
			})
		}
	}
}

// TestP2PSpectatorRepairHostile: repair messages a spectator has no
// business sending (a part: a spectator serves nothing; an ask at a frame
// off the checksum grid or past the host's) are counted malformed by its
// host, and those a host never sends a spectator (an ask, an ack) by the
// spectator; a part it did not ask for is acknowledged and changes
// nothing. Nobody desyncs, nobody is dropped.
func TestP2PSpectatorRepairHostile(t *testing.T) {
	var h *hostileTransport
	c := newCluster(t, clusterOpts{players: 2, spectators: 1, seed: 13, mash: 0.3,
		link: local.Link{Latency: 40 * time.Millisecond, Jitter: 5 * time.Millisecond},
		cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 32}, wrap: hostileP0(&h)})
	c.frames(120, 10*time.Second)
	spec := c.nodes[2].s
	before, err := c.nodes[0].p.PeerStats("s0")
	require.NoError(t, err)
	sb := spec.PeerStats()
	seq := uint16(0)
	attack(t, c, 300, func(rng *rand.Rand) {
		seq++
		data := make([]byte, 10)
		part := wire.Repair{Seq: seq, Kind: wire.RepairPart, Frame: 50, Sum: 1, Size: 10, Data: data}
		h.forge("s0", part.Append(nil))
		ask := wire.Repair{Seq: seq, Kind: wire.RepairAsk, Frame: 7}
		h.forge("s0", ask.Append(nil))
		ask.Frame = 1 << 30
		h.forge("s0", ask.Append(nil))
		// To the spectator, as if from its host.
		ask.Frame = 10
		spec.handle(spec.host, wire.TypeRejoin, ask.Append(nil))
		ack := wire.Repair{Seq: seq, Kind: wire.RepairAck, Frame: 10, Part: 0}
		spec.handle(spec.host, wire.TypeRejoin, ack.Append(nil))
		spec.handle(spec.host, wire.TypeRejoin, part.Append(nil))
	})
	st, err := c.nodes[0].p.PeerStats("s0")
	require.NoError(t, err)
	require.GreaterOrEqual(t, st.Malformed-before.Malformed, uint64(3*250), "the host counted them")
	require.GreaterOrEqual(t, spec.PeerStats().Malformed-sb.Malformed, uint64(2*250), "the spectator counted them")
	require.Zero(t, st.RepairsServed)
	require.Zero(t, spec.PeerStats().RepairsTaken)
	require.Empty(t, kindsOf(c.nodes[2].events, rollnet.EventDesyncRepaired))
}

// TestP2PSpectatorNotRepaired: under Config.NoRepair its host never
// answers a spectator's ask; after repairTimeout it stops asking and
// watches on apart (the desync stays reported), never failing.
func TestP2PSpectatorNotRepaired(t *testing.T) {
	lk := local.Link{Latency: 20 * time.Millisecond, Jitter: 2 * time.Millisecond}
	var nw *local.Network
	rc := newRepairClusterOn(t, 2, -1, 0, 0, 5, lk, &nw, func(i int, c *Config[uint16]) {
		c.NoRepair = true
		if i == 0 {
			c.Spectators = []transport.Peer{"s"}
		}
	})
	spec := rc.watch(t, nw, 0, 200)
	rc.run(repairTimeout + 5*time.Second)
	require.NoError(t, spec.err)
	for _, n := range rc.nodes {
		require.NoError(t, n.err, n.name)
	}
	require.Len(t, kindsOf(spec.events, rollnet.EventDesyncDetected), 1)
	require.Empty(t, kindsOf(spec.events, rollnet.EventDesyncRepaired))
	require.Equal(t, rollnet.NoFrame, spec.s.rp.want, "it stopped asking")
	require.Greater(t, spec.s.Frame(), rollnet.Frame(60*(repairTimeout/time.Second)), "it watches on")
	st, err := rc.nodes[0].p.PeerStats("s")
	require.NoError(t, err)
	require.Zero(t, st.RepairsServed)
}
