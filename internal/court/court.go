// Package court is rollnet-host's example game, which it and a local
// fleet (fleet/fleetlocal) host as "court": eight paddles on a line, each
// moved by its player's input (-1, 0 or 1 a frame) and kept on the court.
// A client (a bot of the fleet's tests, rollnet-fleet -play) simulates it
// with the same State and Simulate.
package court

import "github.com/rollnet/rollnet"

// Players is the court's slots, one per client.
const Players = 8

// Height is the court's length: a paddle is kept in [0, Height].
const Height = 1000

// State is the court: every paddle's place and the frame.
type State struct {
	Paddle [Players]int32
	Frame  int32
	_      [4]byte
}

// Simulate moves each paddle by its input.
func Simulate(c *State, in []int8, f rollnet.Frame) {
	for p, v := range in {
		c.Paddle[p] = min(max(c.Paddle[p]+int32(max(min(v, 1), -1)), 0), Height)
	}
	c.Frame = int32(f)
}

// Init is the state before frame 0: every paddle in the middle.
func Init(uint64) State {
	var c State
	for i := range c.Paddle {
		c.Paddle[i] = Height / 2
	}
	return c
}
