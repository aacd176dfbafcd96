package testkit

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/rollback"
)

// The lockstep oracle: a core session played with its remote inputs
// delivered late, early, duplicated and reordered within its window must
// hold, for every confirmed frame, the checksum of a lockstep run that
// simulates every frame once with every real input.

// Game is one game against the oracle.
type Game struct {
	Players, Capacity, Delay, MaxPred int // MaxPred 0 means the window
	Predict                           bool
	Frames, MaxLate                   int
	DupRate, WrongLocalRate           float64
}

// Window is the frames a session of g may run ahead of its input delay.
func (g Game) Window() int { return g.Capacity - 1 - g.Delay }

// Prediction is the effective prediction limit.
func (g Game) Prediction() int {
	if g.MaxPred == 0 {
		return g.Window()
	}
	return g.MaxPred
}

// RandomGame draws a game of frames frames: 1 to 8 players, capacities 2
// to 32, input delays, prediction limits, predictors, lateness and
// duplicates.
func RandomGame(rng *rand.Rand, frames int) Game {
	caps := []int{2, 4, 8, 16, 32}
	g := Game{Players: 1 + rng.IntN(8), Capacity: caps[rng.IntN(len(caps))], Frames: frames}
	g.Delay = rng.IntN(g.Capacity - 1) // a window of 1 at least
	if rng.IntN(3) > 0 {
		g.MaxPred = rng.IntN(g.Window() + 1)
	}
	g.Predict = rng.IntN(2) == 0
	g.MaxLate = rng.IntN(2*g.Window() + 2)
	g.DupRate = rng.Float64() * 0.3
	g.WrongLocalRate = rng.Float64() * 0.3
	return g
}

// Predict is the predictor of a game with Predict set.
func Predict(_ int, last uint16, f rollnet.Frame) uint16 { return (last + uint16(f)%2) % 5 }

// Script returns every player's input for every frame: held values that
// change now and then (so predictions are sometimes right), zero in the
// input-delay frames.
func Script(rng *rand.Rand, players, frames, delay int) [][]uint16 {
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

// MixerSum is the checksum a session computes of a Mixer.
func MixerSum(w *Mixer) uint32 { return rollback.Checksum(rollback.BytesOf(w)) }

// Oracle returns the checksum after every frame (index f+1; index 0 is
// the start) of a lockstep run of script from start.
func Oracle(start Mixer, script [][]uint16) []uint32 {
	want := make([]uint32, len(script)+1)
	w := start
	want[0] = MixerSum(&w)
	for f, in := range script {
		SimulateMixer(&w, in, rollnet.Frame(f))
		want[f+1] = MixerSum(&w)
	}
	return want
}

// Core is the session the oracle plays: a core session of Mixer and
// uint16 inputs.
type Core interface {
	Frame() rollnet.Frame
	ConfirmedFrame() rollnet.Frame
	AddLocalInput(player int, in uint16) error
	AddRemoteInput(player int, frame rollnet.Frame, in uint16) error
	AdvanceFrame() error
	ChecksumAt(frame rollnet.Frame) (uint32, error)
}

// Refusals are the core's errors the oracle tells apart (errors.Is).
type Refusals struct {
	OutOfWindow     error // an input outside the window: delivered again later
	PredictionLimit error // the frame would be predicted too far: time passes
}

// delivery is one remote input on its way.
type delivery struct {
	player int
	frame  rollnet.Frame
	at     int // the local Frame() from which it may arrive
}

// Play plays g on s against want (Oracle's) with script: player 0 local,
// the others remote, drawn from rng. Every frame is checked once
// confirmed and, every fullEvery steps (0: never), every confirmed frame
// of the last Capacity. It stops t at the first disagreement, naming
// seed.
func Play(t testing.TB, seed uint64, rng *rand.Rand, s Core, g Game, script [][]uint16, want []uint32, r Refusals, fullEvery int) {
	t.Helper()
	w, mp := g.Window(), g.Prediction()
	buckets := make([][]delivery, g.Frames+1)
	var ready, later []delivery
	clock := 0 // buckets up to clock have joined ready
	for p := 1; p < g.Players; p++ {
		for f := g.Delay; f < g.Frames; f++ {
			// Sent by the peer at its frame f-delay, give or take its lead.
			at := min(max(f-g.Delay-mp+rng.IntN(g.MaxLate+mp+1), 0), g.Frames)
			buckets[at] = append(buckets[at], delivery{p, rollnet.Frame(f), at})
		}
	}
	ready = append(ready, buckets[0]...)
	push := func(d delivery) {
		if d.at <= clock {
			later = append(later, d) // joins ready at the next tick
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
	deliver := func(d delivery) {
		err := s.AddRemoteInput(d.player, d.frame, script[d.frame][d.player])
		if errors.Is(err, r.OutOfWindow) {
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
	check := func(from, to int) {
		for f := from; f <= to; f++ {
			got, err := s.ChecksumAt(rollnet.Frame(f))
			if err != nil {
				t.Fatalf("seed %d %+v: ChecksumAt(%d): %v (Frame %d, Confirmed %d)", seed, g, f, err, s.Frame(), s.ConfirmedFrame())
			}
			if got != want[f+1] {
				t.Fatalf("seed %d %+v: frame %d checksum %08x, oracle %08x (Frame %d, Confirmed %d)",
					seed, g, f, got, want[f+1], s.Frame(), s.ConfirmedFrame())
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
			if rng.Float64() < g.WrongLocalRate { // replaced before the frame runs
				if err := s.AddLocalInput(0, script[lf][0]+1); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.AddLocalInput(0, script[lf][0]); err != nil {
				t.Fatal(err)
			}
		}
		err := s.AdvanceFrame()
		for waits := 0; errors.Is(err, r.PredictionLimit); waits++ {
			if s.Frame() != rollnet.Frame(now) {
				t.Fatalf("seed %d: a refused AdvanceFrame moved the frame", seed)
			}
			if waits > 4*(g.MaxLate+g.Capacity)+100 {
				t.Fatalf("seed %d %+v: stuck at frame %d, confirmed %d", seed, g, s.Frame(), s.ConfirmedFrame())
			}
			// The network catches up: time passes until the inputs arrive.
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
}
