package torture

import (
	"errors"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/session"
)

// T1: the core session against a lockstep oracle. Random games (1 to 8
// players, capacities 2 to 32, input delays, prediction limits,
// predictors) with remote inputs delivered late, early, duplicated and
// reordered within the window; every confirmed frame's checksum must equal
// the oracle's, which simulates every frame once with every real input.
// The helpers here (prefixed core) serve T3, T4 and T7 too.

const t1Frames = 1_000_000 // across seeds, times -torture.scale

// coreWorld mixes every input strongly into its state, so any wrong input
// on any frame shows in the checksum.
type coreWorld struct {
	R     rollnet.Rand
	Acc   [8]uint32
	Frame int32
	_     [4]byte
}

func coreSim(w *coreWorld, in []uint16, f rollnet.Frame) {
	for p, v := range in {
		a := &w.Acc[p%8]
		*a = bits.RotateLeft32(*a^(uint32(v)+1)*0x9e3779b1, 7) + uint32(p+1)*0x85ebca6b
	}
	x := uint32(w.R.Uint64())
	for i := range w.Acc {
		w.Acc[i] += w.Acc[(i+1)%8] ^ x
		x = bits.RotateLeft32(x, 5)
	}
	w.Frame = int32(f)
}

func coreSum(w *coreWorld) uint32 { return rollback.Checksum(rollback.BytesOf(w)) }

// coreGame is one randomized game.
type coreGame struct {
	Players, Capacity, Delay, MaxPred int
	Predict                           bool
	Frames, MaxLate                   int
	DupRate, WrongLocalRate           float64
}

func (g coreGame) window() int { return g.Capacity - 1 - g.Delay }

// maxPred is the effective prediction limit (0 means the window).
func (g coreGame) maxPred() int {
	if g.MaxPred == 0 {
		return g.window()
	}
	return g.MaxPred
}

func (g coreGame) config() session.Config[uint16] {
	cfg := session.Config[uint16]{Players: g.Players, Capacity: g.Capacity, InputDelay: g.Delay, MaxPrediction: g.MaxPred}
	if g.Predict {
		cfg.Predict = func(_ int, last uint16, f rollnet.Frame) uint16 { return (last + uint16(f)%2) % 5 }
	}
	return cfg
}

func coreRandomGame(rng *rand.Rand, frames int) coreGame {
	caps := []int{2, 4, 8, 16, 32}
	g := coreGame{Players: 1 + rng.IntN(8), Capacity: caps[rng.IntN(len(caps))], Frames: frames}
	g.Delay = rng.IntN(g.Capacity - 1)
	if rng.IntN(3) > 0 {
		g.MaxPred = rng.IntN(g.window() + 1)
	}
	g.Predict = rng.IntN(2) == 0
	g.MaxLate = rng.IntN(2*g.window() + 2)
	g.DupRate = rng.Float64() * 0.3
	g.WrongLocalRate = rng.Float64() * 0.3
	return g
}

// coreScript returns every player's input for every frame: held values
// that change now and then, zero in the input-delay frames.
func coreScript(rng *rand.Rand, players, frames, delay int) [][]uint16 {
	script := make([][]uint16, frames)
	prev := make([]uint16, players)
	for f := range script {
		script[f] = make([]uint16, players)
		if f < delay {
			continue
		}
		for p := range players {
			if rng.IntN(4) == 0 {
				prev[p] = uint16(rng.IntN(5))
			}
			script[f][p] = prev[p]
		}
	}
	return script
}

// coreOracle returns the checksum after every frame (index f+1; index 0
// is the start) of a lockstep run: every frame simulated once.
func coreOracle(start coreWorld, script [][]uint16) []uint32 {
	want := make([]uint32, len(script)+1)
	w := start
	want[0] = coreSum(&w)
	for f, in := range script {
		coreSim(&w, in, rollnet.Frame(f))
		want[f+1] = coreSum(&w)
	}
	return want
}

type coreDelivery struct {
	player int
	frame  rollnet.Frame
	at     int
}

// coreRun plays one game: player 0 local, the others remote. It checks
// every frame against the oracle once it is confirmed and, every
// fullEvery steps, every confirmed frame still held. It returns the
// session's stats.
func coreRun(t testing.TB, seed uint64, g coreGame, fullEvery int) session.Stats {
	rng := rand.New(rand.NewPCG(seed, seed^0x7011))
	script := coreScript(rng, g.Players, g.Frames, g.Delay)
	var start coreWorld
	start.R = rollnet.NewRand(rng.Uint64())
	start.Acc[3] = rng.Uint32()
	want := coreOracle(start, script)

	s, err := session.New[coreWorld](g.config(), coreSim)
	if err != nil {
		t.Fatalf("seed %d %+v: %v", seed, g, err)
	}
	*s.State() = start
	w, mp := g.window(), g.maxPred()

	buckets := make([][]coreDelivery, g.Frames+1)
	var ready, later []coreDelivery
	clock := 0
	for p := 1; p < g.Players; p++ {
		for f := g.Delay; f < g.Frames; f++ {
			at := min(max(f-g.Delay-mp+rng.IntN(g.MaxLate+mp+1), 0), g.Frames)
			buckets[at] = append(buckets[at], coreDelivery{p, rollnet.Frame(f), at})
		}
	}
	ready = append(ready, buckets[0]...)
	push := func(d coreDelivery) {
		if d.at <= clock {
			later = append(later, d)
			return
		}
		d.at = min(d.at, g.Frames)
		buckets[d.at] = append(buckets[d.at], d)
	}
	tick := func() {
		if clock < g.Frames {
			clock++
			ready = append(ready, buckets[clock]...)
			buckets[clock] = nil
		}
		ready = append(ready, later...)
		later = later[:0]
	}
	deliver := func(d coreDelivery) {
		err := s.AddRemoteInput(d.player, d.frame, script[d.frame][d.player])
		if errors.Is(err, session.ErrOutOfWindow) {
			if hi := s.Frame() + rollnet.Frame(g.Delay+mp); d.frame <= hi {
				t.Fatalf("seed %d: refused frame %d, inside the window (Frame %d, hi %d)", seed, d.frame, s.Frame(), hi)
			}
			d.at = int(s.Frame()) + 1
			push(d)
			return
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if rng.Float64() < g.DupRate {
			d.at = int(s.Frame()) + rng.IntN(2*w+2)
			push(d)
		}
	}
	arrive := func(p float64) {
		rng.Shuffle(len(ready), func(i, j int) { ready[i], ready[j] = ready[j], ready[i] })
		for i := 0; i < len(ready); {
			if rng.Float64() < p {
				d := ready[i]
				ready[i] = ready[len(ready)-1]
				ready = ready[:len(ready)-1]
				deliver(d)
				continue
			}
			i++
		}
	}
	check := func(from, to int) {
		for f := from; f <= to; f++ {
			got, err := s.ChecksumAt(rollnet.Frame(f))
			if err != nil {
				t.Fatalf("seed %d %+v: ChecksumAt(%d): %v (Frame %d, Confirmed %d)", seed, g, f, err, s.Frame(), s.ConfirmedFrame())
			}
			if got != want[f+1] {
				t.Fatalf("seed %d %+v: frame %d checksum %08x, oracle %08x (Frame %d, Confirmed %d, stats %+v)",
					seed, g, f, got, want[f+1], s.Frame(), s.ConfirmedFrame(), s.Stats())
			}
		}
	}
	verified := -1 // frames up to here were checked once confirmed
	for steps := 0; int(s.Frame()) < g.Frames; steps++ {
		now := int(s.Frame())
		for clock < now {
			tick()
		}
		arrive(0.75)
		if lf := now + g.Delay; lf < g.Frames {
			if rng.Float64() < g.WrongLocalRate {
				if err := s.AddLocalInput(0, script[lf][0]+1); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.AddLocalInput(0, script[lf][0]); err != nil {
				t.Fatal(err)
			}
		}
		err := s.AdvanceFrame()
		for waits := 0; errors.Is(err, session.ErrPredictionLimit); waits++ {
			if s.Frame() != rollnet.Frame(now) {
				t.Fatalf("seed %d: a refused Step moved the frame", seed)
			}
			if waits > 4*(g.MaxLate+g.Capacity)+100 {
				t.Fatalf("seed %d %+v: stuck at frame %d, confirmed %d", seed, g, s.Frame(), s.ConfirmedFrame())
			}
			arrive(1)
			tick()
			err = s.AdvanceFrame()
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		top := min(int(s.ConfirmedFrame()), int(s.Frame())-1)
		if int(s.Frame()-1-s.ConfirmedFrame()) > mp {
			t.Fatalf("seed %d: ran %d frames past ConfirmedFrame, limit %d", seed, s.Frame()-1-s.ConfirmedFrame(), mp)
		}
		check(verified+1, top)
		verified = max(verified, top)
		if fullEvery > 0 && steps%fullEvery == 0 {
			check(max(int(s.Frame())-g.Capacity, -1), top)
		}
	}
	return s.Stats()
}

// TestT1SessionOracle: 1,000,000 frames across seeds (times
// -torture.scale), zero divergences.
func TestT1SessionOracle(t *testing.T) {
	const perGame = 2000
	games := scaled(t1Frames) / perGame
	var total session.Stats
	for i := range games {
		seed := baseSeed()*1_000_003 + uint64(i)
		g := coreRandomGame(rand.New(rand.NewPCG(seed, 1)), perGame)
		st := coreRun(t, seed, g, 64)
		total.Rollbacks += st.Rollbacks
		total.Mispredictions += st.Mispredictions
		total.ResimulatedFrames += st.ResimulatedFrames
		total.StaleInputs += st.StaleInputs
		total.MaxRollbackDepth = max(total.MaxRollbackDepth, st.MaxRollbackDepth)
		if t.Failed() {
			return
		}
	}
	t.Logf("%d games, %d frames: %+v", games, games*perGame, total)
	if total.Rollbacks == 0 || total.StaleInputs == 0 || total.MaxRollbackDepth < 15 {
		t.Fatalf("the games did not exercise rollbacks and stale inputs: %+v", total)
	}
}
