package p2p

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// The round harness (issue 29 goal 1): a round is both peers of a
// 2-player match each adding its input and advancing one frame, and the
// datagrams between them crossing transport/local. The link delays every
// datagram by exactly one tick, so what a peer sends in a round arrives
// at the other in the next, and both players' inputs change every frame,
// so a prediction is always wrong. With an input delay of one frame every
// input arrives in time (0 rollbacks a frame); with none, each peer
// hears the other's input a frame late and rolls back one frame every
// frame (1 rollback a frame, of depth 1). The state is the cluster
// tests' World (32 bytes); the NetConfig is the default (a checksum
// every ChecksumInterval frames rides on an Input, quality reports run).
//
// .ci/instructions counts the instructions of round under
// callgrind; BenchmarkP2PRound times it beside BenchmarkP2PRoundBaseline,
// the same rounds' core work without the network.

// roundTick is the harness's frame period and one-way latency.
const roundTick = time.Second / 60

// roundClock is the harness's fake clock. The harness runs on one
// goroutine, so it has no lock (local.Clock's, for tests whose clock is
// read from several, would be a twentieth of the round).
type roundClock struct{ now time.Time }

func (c *roundClock) Now() time.Time { return c.now }

// p2pRound is a 2-player match of two P2P sessions on a fake clock.
type p2pRound struct {
	clock    *roundClock
	now      time.Time
	peers    [2]*Session[p2pWorld, uint16]
	frame    uint16
	events   []rollnet.Event
	rollback int
}

// newP2PRound returns the harness for 0 or 1 rollback a frame, past the
// handshake and warmed up (every timer started, the link lanes made).
func newP2PRound(tb testing.TB, rollback int) *p2pRound {
	tb.Helper()
	clock := &roundClock{now: testkit.Epoch}
	nw, err := local.NewNetwork(local.Config{Seed: 29, Link: local.Link{Latency: roundTick}, Now: clock.Now})
	require.NoError(tb, err)
	r := &p2pRound{clock: clock, now: clock.Now(), rollback: rollback, events: make([]rollnet.Event, 0, 256)}
	for i := range r.peers {
		ep, err := nw.Endpoint(fmt.Sprintf("p%d", i))
		require.NoError(tb, err)
		remote := []transport.Peer{"p0", "p1"}
		remote[i] = ""
		cfg := Config[uint16]{
			Session: session.Config[uint16]{Players: 2, InputDelay: 1 - rollback, Capacity: 32},
			Remote:  remote,
			Net:     rollnet.NetConfig{Now: clock.Now, Tuning: rollnet.NetTuning{Rand: rand.New(rand.NewPCG(29, uint64(i))).Uint64}},
		}
		r.peers[i], err = New[p2pWorld](cfg, ep, simP2P)
		require.NoError(tb, err)
	}
	for range 600 { // the handshake
		r.now = r.now.Add(roundTick)
		r.clock.now = r.now
		for _, p := range r.peers {
			require.NoError(tb, p.Poll())
		}
		if r.peers[0].Running() && r.peers[1].Running() {
			break
		}
	}
	require.True(tb, r.peers[0].Running() && r.peers[1].Running(), "the round harness's handshake")
	for range 240 {
		r.round()
	}
	return r
}

// round is one round: each peer adds its input (a new value every frame)
// and advances a frame, draining its events. It panics on an error: the
// harness runs at a steady state where none is expected.
//
//go:noinline
func (r *p2pRound) round() {
	r.now = r.now.Add(roundTick)
	r.clock.now = r.now
	r.frame++
	for i, p := range r.peers {
		if err := p.AddLocalInput(i, r.frame*3+uint16(i)); err != nil {
			panic(err)
		}
		if err := p.AdvanceFrame(); err != nil {
			panic(err)
		}
		r.events = p.Events(r.events[:0])
	}
}

// check fails tb unless each peer rolled back exactly r.rollback times in
// the rounds since before (its Stats then), one frame each time, and was
// never told to wait.
func (r *p2pRound) check(tb testing.TB, before [2]session.Stats, rounds int) {
	tb.Helper()
	for i, p := range r.peers {
		st := p.Stats()
		require.Equal(tb, r.rollback*rounds, st.Rollbacks-before[i].Rollbacks, "peer %d's rollbacks in %d rounds", i, rounds)
		require.Equal(tb, r.rollback*rounds, st.ResimulatedFrames-before[i].ResimulatedFrames, "peer %d's resimulated frames", i)
		require.Zero(tb, p.WaitRecommendation(), "peer %d told to wait", i)
	}
}

func (r *p2pRound) stats() [2]session.Stats {
	return [2]session.Stats{r.peers[0].Stats(), r.peers[1].Stats()}
}

// TestP2PRound: the harness does what it names (each peer rolls back 0 or
// 1 frame a frame), the peers agree on every confirmed frame's checksum,
// and a round allocates nothing.
func TestP2PRound(t *testing.T) {
	for _, rb := range []int{0, 1} {
		t.Run(fmt.Sprintf("rollback=%d", rb), func(t *testing.T) {
			r := newP2PRound(t, rb)
			sums := testkit.NewAgreement()
			var checked [2]rollnet.Frame // from the frame both have confirmed since the warm-up
			for i := range checked {
				checked[i] = min(r.peers[0].ConfirmedFrame(), r.peers[1].ConfirmedFrame()) - 1
			}
			before := r.stats()
			const rounds = 2000
			for range rounds {
				r.round()
				for i, p := range r.peers {
					var err error
					checked[i], err = sums.Through(fmt.Sprint(i), p.core, checked[i], min(p.ConfirmedFrame(), p.Frame()-1))
					require.NoError(t, err)
				}
			}
			r.check(t, before, rounds)
			require.Greater(t, sums.Agreed, rounds-10, "frames compared")
			allocs.RequireZero(t, 500, r.round, "a round at %d rollback a frame", rb)
		})
	}
}

// BenchmarkP2PRound is issue 29's round: both peers of a 2-player match
// advance a frame and exchange their datagrams over transport/local, at 0
// and 1 rollback a frame.
func BenchmarkP2PRound(b *testing.B) {
	for _, rb := range []int{0, 1} {
		b.Run(fmt.Sprintf("rollback=%d", rb), func(b *testing.B) {
			r := newP2PRound(b, rb)
			before := r.stats()
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				r.round()
				n++
			}
			b.StopTimer()
			r.check(b, before, n)
		})
	}
}

// roundBaseline is the round's core work without the network: two core
// sessions, each given its own input and the other's, the other's a frame
// late for 1 rollback a frame, as the P2P peers hear it.
type roundBaseline struct {
	peers    [2]*session.Session[p2pWorld, uint16]
	frame    uint16
	rollback int
}

func newRoundBaseline(tb testing.TB, rollback int) *roundBaseline {
	r := &roundBaseline{rollback: rollback}
	for i := range r.peers {
		s, err := session.New[p2pWorld](session.Config[uint16]{Players: 2, InputDelay: 1 - rollback, Capacity: 32}, simP2P)
		require.NoError(tb, err)
		r.peers[i] = s
	}
	for range 240 {
		r.round()
	}
	return r
}

//go:noinline
func (r *roundBaseline) round() {
	r.frame++
	for i, s := range r.peers {
		f := s.Frame() + rollnet.Frame(1-r.rollback)
		if err := s.AddLocalInput(i, r.frame*3+uint16(i)); err != nil {
			panic(err)
		}
		// The other's input of the frame before arrives now (sent a
		// round ago, a frame of delay ahead).
		if g := f - 1; g >= rollnet.Frame(1-r.rollback) {
			if err := s.AddRemoteInput(1-i, g, (r.frame-1)*3+uint16(1-i)); err != nil {
				panic(err)
			}
		}
		if err := s.AdvanceFrame(); err != nil {
			panic(err)
		}
	}
}

// BenchmarkP2PRoundBaseline is BenchmarkP2PRound's floor: the same rounds
// of the two core sessions, each given the inputs directly when the P2P
// peers would hear them, with the same rollbacks, without the network.
func BenchmarkP2PRoundBaseline(b *testing.B) {
	for _, rb := range []int{0, 1} {
		b.Run(fmt.Sprintf("rollback=%d", rb), func(b *testing.B) {
			r := newRoundBaseline(b, rb)
			before := [2]session.Stats{r.peers[0].Stats(), r.peers[1].Stats()}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				r.round()
				n++
			}
			b.StopTimer()
			for i, s := range r.peers {
				require.Equal(b, rb*n, s.Stats().Rollbacks-before[i].Rollbacks, "baseline peer %d's rollbacks", i)
			}
		})
	}
}
