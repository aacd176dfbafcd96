package torture

import (
	"math/rand/v2"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/session"
)

// T1: the core session against a lockstep oracle. Random games (1 to 8
// players, capacities 2 to 32, input delays, prediction limits,
// predictors) with remote inputs delivered late, early, duplicated and
// reordered within the window; every confirmed frame's checksum must equal
// the oracle's, which simulates every frame once with every real input.
// The helpers here (prefixed core) serve T3, T4 and T7 too.

const t1Frames = 1_000_000 // across seeds, times -torture.scale

// coreWorld mixes every input strongly into its state (the test kit's
// Mixer), so any wrong input on any frame shows in the checksum.
type coreWorld = testkit.Mixer

var coreSim = testkit.SimulateMixer

// coreGame is one randomized game (the test kit's).
type coreGame = testkit.Game

// coreConfig is g's session configuration.
func coreConfig(g coreGame) session.Config[uint16] {
	cfg := session.Config[uint16]{Players: g.Players, Capacity: g.Capacity, InputDelay: g.Delay, MaxPrediction: g.MaxPred}
	if g.Predict {
		cfg.Predict = testkit.Predict
	}
	return cfg
}

var (
	coreRandomGame = testkit.RandomGame
	coreScript     = testkit.Script
	coreOracle     = testkit.Oracle
)

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
	s, err := session.New[coreWorld](coreConfig(g), coreSim)
	if err != nil {
		t.Fatalf("seed %d %+v: %v", seed, g, err)
	}
	*s.State() = start
	testkit.Play(t, seed, rng, s, g, script, want,
		testkit.Refusals{OutOfWindow: session.ErrOutOfWindow, PredictionLimit: session.ErrPredictionLimit}, fullEvery)
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
