package main

import "fmt"

// Two peers that start from the same seed and apply the same inputs hold
// the same bytes, frame after frame: that is all rollback netcode asks of
// a game.
func ExampleStep() {
	a, b := NewState(2026), NewState(2026)
	for range 600 {
		in := [2]Input{Bot(&a, 0), Bot(&a, 1)}
		Step(&a, in)
		Step(&b, in)
	}
	fmt.Println(a == b, a.BallVX != 0 || a.Wait > 0)
	// Output: true true
}
