// Package steady is a deterministic game, for rollnet-check's tests.
package steady

import "github.com/rollnet/rollnet"

// State is the game's state.
type State struct{ X, V int32 }

// Simulate moves X by a speed the players push.
func Simulate(s *State, in []uint8, _ rollnet.Frame) {
	for _, b := range in {
		s.V += int32(b&3) - 1
	}
	s.X += s.V
}
