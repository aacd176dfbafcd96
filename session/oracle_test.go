package session

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/stretchr/testify/require"
)

// oracleRun is one randomized game for the differential test.
type oracleRun struct {
	players, capacity, delay, maxPred int
	predict                           bool
	frames                            int
	maxLate                           int
	dupRate, wrongLocalRate           float64
}

func randomRun(rng *rand.Rand, frames int) oracleRun {
	caps := []int{2, 4, 8, 16, 32}
	r := oracleRun{players: 1 + rng.IntN(8), capacity: caps[rng.IntN(len(caps))], frames: frames}
	r.delay = rng.IntN(r.capacity - 1) // W >= 1
	w := r.capacity - 1 - r.delay
	if rng.IntN(3) > 0 {
		r.maxPred = rng.IntN(w + 1) // 0 means W
	}
	r.predict = rng.IntN(2) == 0
	r.maxLate = rng.IntN(2*w + 2)
	r.dupRate = rng.Float64() * 0.3
	r.wrongLocalRate = rng.Float64() * 0.3
	return r
}

// delivery is one remote input on its way.
type delivery struct {
	player int
	frame  rollnet.Frame
	at     int // the local Frame() from which it may arrive
}

// oracleScript returns every player's input for every frame: held values
// that change now and then, so predictions are sometimes right.
func oracleScript(rng *rand.Rand, players, frames, delay int) [][]uint16 {
	script := make([][]uint16, frames)
	prev := make([]uint16, players)
	for f := range script {
		script[f] = make([]uint16, players)
		for p := range players {
			if f >= delay {
				if rng.IntN(4) == 0 {
					prev[p] = uint16(rng.IntN(5))
				}
				script[f][p] = prev[p]
			}
		}
	}
	return script
}

// runOracle plays one game against the lockstep oracle and returns the
// frames simulated. Player 0 is local; the others arrive late, early,
// duplicated and reordered within the window.
func runOracle(t *testing.T, seed uint64, run oracleRun) Stats {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	script := oracleScript(rng, run.players, run.frames, run.delay)

	var start world
	start.R = rollnet.NewRand(rng.Uint64())
	start.Acc[3] = rng.Uint32()

	// The oracle: every frame simulated once, with every real input.
	want := make([]uint32, run.frames+1) // want[f+1]: after frame f
	o := start
	want[0] = worldSum(&o)
	for f := range run.frames {
		simWorld(&o, script[f], rollnet.Frame(f))
		want[f+1] = worldSum(&o)
	}

	cfg := Config[uint16]{Players: run.players, Capacity: run.capacity, InputDelay: run.delay, MaxPrediction: run.maxPred}
	if run.predict {
		cfg.Predict = func(p int, last uint16, f rollnet.Frame) uint16 { return (last + uint16(f)%2) % 5 }
	}
	s := newWorld(t, cfg)
	*s.State() = start
	w := s.window

	// buckets[t]: deliveries that may arrive once Frame() >= t; ready:
	// those that may arrive now but have not yet.
	buckets := make([][]delivery, run.frames+1)
	var ready, later []delivery
	clock := 0 // buckets up to clock have joined ready
	push := func(d delivery) {
		if d.at <= clock {
			later = append(later, d) // joins ready at the next tick
			return
		}
		d.at = min(d.at, run.frames)
		buckets[d.at] = append(buckets[d.at], d)
	}
	pushAt := func(d delivery) {
		d.at = min(max(d.at, 0), run.frames)
		buckets[d.at] = append(buckets[d.at], d)
	}
	tick := func() {
		if clock < run.frames {
			clock++
			ready = append(ready, buckets[clock]...)
			buckets[clock] = nil
		}
		ready = append(ready, later...)
		later = later[:0]
	}
	for p := 1; p < run.players; p++ {
		for f := run.delay; f < run.frames; f++ {
			// Sent by the peer at its frame f-delay, give or take its lead.
			pushAt(delivery{p, rollnet.Frame(f), f - run.delay - run.maxPred + rng.IntN(run.maxLate+run.maxPred+1)})
		}
	}
	ready = append(ready, buckets[0]...)
	deliver := func(d delivery) {
		err := s.AddRemoteInput(d.player, d.frame, script[d.frame][d.player])
		if errors.Is(err, ErrOutOfWindow) {
			lo, hi := s.acceptWindow()
			if d.frame <= hi {
				t.Fatalf("refused frame %d inside [%d, %d]", d.frame, lo, hi)
			}
			d.at = int(s.frame) + 1
			push(d)
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if rng.Float64() < run.dupRate {
			d.at = int(s.frame) + rng.IntN(2*w+2)
			push(d)
		}
	}
	// arrive delivers each ready input with probability p, in random order.
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
	for int(s.Frame()) < run.frames {
		now := int(s.Frame())
		for clock < now {
			tick()
		}
		arrive(0.75)
		if lf := now + run.delay; lf < run.frames {
			if rng.Float64() < run.wrongLocalRate {
				if err := s.AddLocalInput(0, script[lf][0]+1); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.AddLocalInput(0, script[lf][0]); err != nil {
				t.Fatal(err)
			}
		}
		err := s.AdvanceFrame()
		for waits := 0; errors.Is(err, ErrPredictionLimit); waits++ {
			if waits > 2*run.frames {
				t.Fatalf("seed %d: stuck at frame %d, confirmed %d", seed, s.Frame(), s.ConfirmedFrame())
			}
			if s.Frame() != rollnet.Frame(now) {
				t.Fatal("a refused Step moved the frame")
			}
			// The network catches up: time passes until the inputs arrive.
			arrive(1)
			tick()
			err = s.AdvanceFrame()
		}
		if err != nil {
			t.Fatal(err)
		}
		// Every confirmed frame still held agrees with the oracle.
		lo := int(s.Frame()) - s.ring.Depth()
		hi := min(int(s.ConfirmedFrame()), int(s.Frame())-1)
		for f := lo; f <= hi; f++ {
			got, err := s.ChecksumAt(rollnet.Frame(f))
			if err != nil {
				t.Fatal(err)
			}
			if got != want[f+1] {
				t.Fatalf("seed %d %+v: frame %d checksum %08x, oracle %08x (Frame %d, Confirmed %d, stats %+v)",
					seed, run, f, got, want[f+1], s.Frame(), s.ConfirmedFrame(), s.Stats())
			}
		}
		if int(s.Frame()-1-s.ConfirmedFrame()) > s.maxPred {
			t.Fatalf("ran %d frames past ConfirmedFrame", s.Frame()-1-s.ConfirmedFrame())
		}
	}
	return s.Stats()
}

// TestOracleDifferential plays random games (1 to 8 players, capacities 2
// to 32, input delays, prediction limits, predictors, late, early,
// duplicated and reordered delivery) against a lockstep oracle that
// simulates each frame once with every real input: after every AdvanceFrame every
// confirmed frame's checksum must equal the oracle's. 240 games of 500
// frames: 120,000 frames.
func TestOracleDifferential(t *testing.T) {
	games, frames := 240, 500
	if testing.Short() {
		games = 24
	}
	var total Stats
	for g := range games {
		seed := uint64(g) + 1
		run := randomRun(rand.New(rand.NewPCG(seed, 99)), frames)
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			st := runOracle(t, seed, run)
			total.Rollbacks += st.Rollbacks
			total.Mispredictions += st.Mispredictions
			total.ResimulatedFrames += st.ResimulatedFrames
			total.StaleInputs += st.StaleInputs
			total.MaxRollbackDepth = max(total.MaxRollbackDepth, st.MaxRollbackDepth)
		})
	}
	t.Logf("%d frames: %+v", games*frames, total)
	// The games must exercise what they claim to.
	require.Positive(t, total.Rollbacks)
	require.Positive(t, total.StaleInputs)
	if !testing.Short() { // 24 short games reach depth 13, not always 15
		require.GreaterOrEqual(t, total.MaxRollbackDepth, 15)
	}
}
