package main

import (
	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/demo/pong/game"
)

// The rules are package game's (demo/pong/game); these names keep the
// demo's code, and the browser build's (web_wasm.go, compiled with this
// file alone), as short as when the rules lived here.

type (
	// State is the whole game (game.State).
	State = game.State
	// Input is one player's input for one frame (game.Input).
	Input = game.Input
)

// The rules' constants (see package game).
const (
	Sub       = game.Sub
	CourtW    = game.CourtW
	CourtH    = game.CourtH
	PaddleH   = game.PaddleH
	PaddleV   = game.PaddleV
	FaceL     = game.FaceL
	FaceR     = game.FaceR
	ServeVX   = game.ServeVX
	MaxVX     = game.MaxVX
	MaxVY     = game.MaxVY
	ServeWait = game.ServeWait
	WinScore  = game.WinScore
	NextMatch = game.NextMatch
	InputUp   = game.InputUp
	InputDown = game.InputDown
)

// NewState is game.NewState.
func NewState(seed uint32) State { return game.NewState(seed) }

// Step is game.Step.
func Step(s *State, in [2]Input) { game.Step(s, in) }

// Bot is game.Bot.
func Bot(s *State, p int) Input { return game.Bot(s, p) }

// simulate is game.Simulate, what the sessions step.
func simulate(s *State, in []Input, f rollnet.Frame) { game.Simulate(s, in, f) }
