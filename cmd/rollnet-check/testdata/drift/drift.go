// Package drift is a game that is not deterministic, for rollnet-check's
// tests: from frame 30 its state depends on a package-level counter, which
// a simulation run again after a rollback has moved on.
package drift

import "github.com/rollnet/rollnet"

// State is the game's state.
type State struct{ X, Heat int32 }

var warmth int32

// Simulate moves X, and from frame 30 warms up.
//
//rollnet:simulate
func Simulate(s *State, in []uint8, f rollnet.Frame) {
	s.X += int32(in[0] & 1)
	if f >= 30 {
		warmth++
		s.Heat += warmth
	}
}
