package main

import (
	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/demo/pong/game"
)

// The rules are package game's (demo/pong/game); these names keep the
// demo's code, and the browser build's (web_wasm.go, compiled with this
// file alone), short.

type (
	State = game.State // the whole game
	Input = game.Input // one player's input for one frame
)

// The rules' constants that the demo uses (see package game).
const (
	Sub, CourtW, CourtH       = game.Sub, game.CourtW, game.CourtH
	PaddleH, PaddleV          = game.PaddleH, game.PaddleV
	FaceL, FaceR              = game.FaceL, game.FaceR
	MaxVX, MaxVY              = game.MaxVX, game.MaxVY
	InputUp, InputDown  Input = game.InputUp, game.InputDown
)

// NewState, Step, Bot, simulate (what the sessions step) and seedFor (the
// serve seed of a room) are package game's.
func NewState(seed uint32) State                     { return game.NewState(seed) }
func Step(s *State, in [2]Input)                     { game.Step(s, in) }
func Bot(s *State, p int) Input                      { return game.Bot(s, p) }
func simulate(s *State, in []Input, f rollnet.Frame) { game.Simulate(s, in, f) }
func seedFor(room string) uint32                     { return game.SeedFor(room) }

// sideName names a side: left, right, or spectator (-1).
func sideName(side int) string {
	switch side {
	case 0:
		return "left"
	case 1:
		return "right"
	}
	return "spectator"
}
