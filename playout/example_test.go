package playout_test

import (
	"fmt"
	"time"

	"github.com/rollnet/rollnet/playout"
)

// A frame loop: the timestep decides how many fixed steps each drawn frame
// pays for, and the frame is drawn at its alpha between the last two steps.
// Drawn at 144 Hz, a 60 Hz simulation steps on two frames of five.
func ExampleTimestep() {
	ts, _ := playout.NewTimestep(playout.TimestepConfig{}) // 60 Hz
	for drawn := 1; drawn <= 5; drawn++ {
		steps := ts.Advance(time.Second / 144)
		fmt.Printf("frame %d: %d steps, alpha %.2f\n", drawn, steps, ts.Alpha())
	}
	// Output:
	// frame 1: 0 steps, alpha 0.42
	// frame 2: 0 steps, alpha 0.83
	// frame 3: 1 steps, alpha 0.25
	// frame 4: 0 steps, alpha 0.67
	// frame 5: 1 steps, alpha 0.08
}

func ExampleSmoother() {
	s, _ := playout.NewSmoother(playout.SmootherConfig{Decay: 0.5})
	pos := playout.Vec{10, 0, 0}
	_ = s.Correct(playout.Vec{4, 0, 0}) // the host corrected the entity by +4
	pos[0] += 4
	for range 3 {
		fmt.Println(s.Draw(pos)[0])
		s.Advance(playout.DefaultStep)
	}
	// Output:
	// 10
	// 12
	// 13
}
