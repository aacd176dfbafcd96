package session

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/stretchr/testify/require"
)

// runOracle plays one game against the lockstep oracle (the test kit's)
// and returns the session's stats. Player 0 is local; the others arrive
// late, early, duplicated and reordered within the window; every confirmed
// frame still held is checked after every AdvanceFrame.
func runOracle(t *testing.T, seed uint64, g testkit.Game) Stats {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	script := testkit.Script(rng, g.Players, g.Frames, g.Delay)
	var start world
	start.R = rollnet.NewRand(rng.Uint64())
	start.Acc[3] = rng.Uint32()
	want := testkit.Oracle(start, script)

	cfg := Config[uint16]{Players: g.Players, Capacity: g.Capacity, InputDelay: g.Delay, MaxPrediction: g.MaxPred}
	if g.Predict {
		cfg.Predict = testkit.Predict
	}
	s := newWorld(t, cfg)
	*s.State() = start
	testkit.Play(t, seed, rng, s, g, script, want, testkit.Refusals{OutOfWindow: ErrOutOfWindow, PredictionLimit: ErrPredictionLimit}, 1)
	require.LessOrEqual(t, int(s.Frame()-1-s.ConfirmedFrame()), s.maxPred, "ran past ConfirmedFrame")
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
		run := testkit.RandomGame(rand.New(rand.NewPCG(seed, 99)), frames)
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
