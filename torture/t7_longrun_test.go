package torture

import (
	"fmt"
	"testing"
)

// T7: long runs. Hundreds of thousands of frames: tens of thousands of
// revolutions of the smallest state and input rings, frame numbers far
// beyond every ring's size, late and reordered inputs throughout, every
// frame checked against the oracle once confirmed and every held
// confirmed frame every 4096 steps: no drift, ever.
func TestT7LongRun(t *testing.T) {
	for i, g := range []coreGame{
		// The smallest ring: W = 1, every input at most one frame late.
		{Players: 2, Capacity: 2, Frames: 150_000, MaxLate: 2, DupRate: 0.1, WrongLocalRate: 0.1},
		// Input delay and a prediction limit below the window.
		{Players: 3, Capacity: 8, Delay: 2, MaxPred: 3, Frames: 100_000, MaxLate: 5, DupRate: 0.05, Predict: true},
		// A deep window with 8 players.
		{Players: 8, Capacity: 32, Delay: 1, Frames: 50_000, MaxLate: 40, DupRate: 0.05, WrongLocalRate: 0.05},
	} {
		g.Frames = scaled(g.Frames)
		t.Run(fmt.Sprintf("cap%d", g.Capacity), func(t *testing.T) {
			st := coreRun(t, baseSeed()*31+uint64(i), g, 4096)
			t.Logf("%d frames: %+v", g.Frames, st)
			if st.Rollbacks == 0 || st.Desyncs != 0 {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}
