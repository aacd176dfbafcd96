package main

import (
	"math"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
)

// The screen and the world share units: pixels.
const (
	Width, Height = 640, 360
	// MaxPlayers is the most players; Targets the targets crossing.
	MaxPlayers = 8
	Targets    = 4
	// Radius is a target's radius.
	Radius = 12
)

// Target crosses the screen at a constant speed, bouncing off the sides.
type Target struct{ X, Y, VX int32 }

// World is the whole game: the targets, each player's shots and hits,
// and whether the host judges shots where they were seen (LagComp 1).
type World struct {
	T       [Targets]Target
	Shots   [MaxPlayers]int32
	Hits    [MaxPlayers]int32
	LagComp uint8
	_       [3]byte
}

// Shot is a player's input: Fire 1 shoots at (X, Y).
type Shot struct {
	X, Y int16
	Fire uint8
	_    uint8
}

// NewWorld is the world before frame 0.
func NewWorld(lagcomp bool) World {
	var w World
	for i := range w.T {
		w.T[i] = Target{X: int32(80 + 150*i), Y: int32(70 + 60*i), VX: int32(3 + i)}
		if i%2 == 1 {
			w.T[i].VX = -w.T[i].VX
		}
	}
	if lagcomp {
		w.LagComp = 1
	}
	return w
}

// Simulate judges the frame's shots, each against the targets as its
// player saw them (with lag compensation and a sight) or at the present,
// then moves the targets. Integers only: every machine agrees.
func Simulate(w *World, in []Shot, _ rollnet.Frame, seen *authority.Sights[World]) {
	for p, s := range in {
		if s.Fire == 0 || p >= MaxPlayers {
			continue
		}
		w.Shots[p]++
		sg, ok := seen.Of(p)
		for i := range w.T {
			x, y := w.T[i].X, w.T[i].Y
			if ok && w.LagComp == 1 {
				x = sg.Lerp(sg.From.T[i].X, sg.To.T[i].X)
			}
			if dx, dy := int32(s.X)-x, int32(s.Y)-y; dx*dx+dy*dy <= Radius*Radius {
				w.Hits[p]++
				break
			}
		}
	}
	for i := range w.T {
		t := &w.T[i]
		t.X += t.VX
		if t.X < Radius || t.X > Width-Radius {
			t.VX = -t.VX
		}
	}
}

// Seen is where a client draws target i: between the host states from
// and to at alpha (netplay's Playout: with LagComp, what its shots are
// judged against).
func Seen(from, to *World, alpha float64, i int) (x, y int32) {
	a, b := from.T[i].X, to.T[i].X
	return a + int32(math.Floor(alpha*float64(b-a))), from.T[i].Y
}
