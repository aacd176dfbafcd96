package main

import (
	"github.com/rollnet/rollnet"
	game "github.com/rollnet/rollnet/internal/ponggame"
)

// Short names for package game's rules, for the demo and the browser
// build (web_wasm.go, compiled with this file alone).
type (
	State = game.State // the whole game
	Input = game.Input // one player's input for one frame
)

const (
	Sub, CourtW, CourtH       = game.Sub, game.CourtW, game.CourtH
	PaddleH, PaddleV          = game.PaddleH, game.PaddleV
	FaceL, FaceR              = game.FaceL, game.FaceR
	InputUp, InputDown  Input = game.InputUp, game.InputDown
)

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
