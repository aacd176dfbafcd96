// Package lib holds a game's rules; package app runs them.
package lib

type State struct{ X, Y float64 }

// Frames counts frames in a package-level variable.
var Frames int32

// Tick's map range is reported in app, where Tick is found.
func Tick(s *State, in []uint8, f int32) {
	for range map[int]int{} {
	}
	Frames++
	s.X = Mul(s.X, s.Y) + 1
}

// Mul returns an unconverted product: inlined, its caller's add may fuse.
func Mul(x, y float64) float64 { return x * y }

// Clean has nothing to report.
func Clean(s *State, in []uint8, f int32) { s.X = float64(s.X*s.Y) + 1 }
