package pacing_test

import (
	"fmt"
	"time"

	"github.com/rollnet/rollnet/internal/pacing"
	"github.com/rollnet/rollnet/playout"
)

// A client's frame loop: the timestep decides how many steps this frame
// pays for, each step takes at most one host state from the queue, and the
// frame is drawn at the timestep's alpha.
func ExampleQueue() {
	ts, _ := playout.NewTimestep(playout.TimestepConfig{}) // 60 Hz
	q, _ := pacing.NewQueue[float64](playout.QueueConfig{Start: 1})

	x := 0.0 // the host's entity, as this client's world has it
	arrivals := map[int][]int32{2: {1}, 4: {2, 4}, 6: {3}}
	for drawn := 1; drawn <= 8; drawn++ {
		for range ts.Advance(time.Second / 60) {
			for _, f := range arrivals[drawn] {
				hx := float64(f) // the host moves one unit a frame
				q.Push(f, &hx)
			}
			out, frame, s := q.Tick()
			switch out {
			case pacing.Coast:
				if q.Started() {
					x++ // carry it along its velocity
				}
			default:
				x = *s
			}
			fmt.Printf("step %d: %-7s frame %d, x = %v\n", drawn, out, frame, x)
		}
	}
	fmt.Printf("%+v\n", q.Stats())
	// Output:
	// step 1: coast   frame 0, x = 0
	// step 2: restart frame 1, x = 1
	// step 3: coast   frame 2, x = 2
	// step 4: apply   frame 2, x = 2
	// step 5: coast   frame 3, x = 3
	// step 6: apply   frame 3, x = 3
	// step 7: apply   frame 4, x = 4
	// step 8: coast   frame 5, x = 5
	// {Applied:4 Coasted:3 Stalls:2 Jumps:0 Underruns:2 Restarts:0 Dropped:0 Duplicates:0}
}

func ExampleQueue_timelineLost() {
	q, _ := pacing.NewQueue[int32](playout.QueueConfig{Start: 1, LostAhead: 60})
	for f := int32(1); f <= 3; f++ {
		q.Push(f, &f)
	}
	q.Tick()
	// The client stopped for ten seconds; the socket hands over the backlog.
	for f := int32(4); f <= 600; f++ {
		if a := q.Push(f, &f); a != pacing.Queued {
			fmt.Println("frame", f, a)
		}
	}
	out, frame, _ := q.Tick()
	fmt.Println(out, frame, "held:", q.Len(), "restarts:", q.Stats().Restarts)
	// Output:
	// frame 64 timeline lost
	// restart 600 held: 0 restarts: 1
}

func ExampleClock() {
	c, _ := pacing.NewClock(playout.ClockConfig{Delay: 2})
	step := playout.DefaultStep
	for f := int32(10); f <= 12; f++ {
		c.Observe(f) // frames applied by the playout, one a step
	}
	for range 3 { // drawn at twice the step rate
		t, _ := c.Advance(step / 2)
		fmt.Printf("T = %.2f\n", t)
	}
	// Output:
	// T = 10.50
	// T = 11.00
	// T = 11.50
}

func ExampleRTT() {
	r, _ := pacing.NewRTT(pacing.RTTConfig{})
	for _, ms := range []time.Duration{100, 60, 80} {
		_ = r.Observe(ms * time.Millisecond)
	}
	fmt.Println(r.Smoothed().Round(time.Millisecond), r.Min(), r.Deviation().Round(time.Millisecond))
	// Output: 93ms 60ms 39ms
}
