package testkit

import (
	"math/bits"
	"time"

	"github.com/rollnet/rollnet"
)

// World is the cluster tests' game: accumulators that mix every input, so
// a wrong input on any frame shows in the checksum.
type World struct {
	Acc   [4]uint32
	H     uint64
	Frame int32
	_     [4]byte
}

// Simulate advances w by frame f with in, one input per player.
func Simulate(w *World, in []uint16, f rollnet.Frame) {
	for p, v := range in {
		a := &w.Acc[p%4]
		*a = bits.RotateLeft32(*a^(uint32(v)+1)*0x9e3779b1, 7) + uint32(p+1)*0x85ebca6b
		w.H = (w.H ^ uint64(v) ^ uint64(p)<<16) * 1099511628211
	}
	w.Frame = int32(f)
}

// Mixer is the core tests' game: a PRNG and accumulators that mix every
// input strongly, so any wrong input on any frame shows in the checksum.
type Mixer struct {
	R     rollnet.Rand
	Acc   [8]uint32
	Frame int32
	_     [4]byte
}

// SimulateMixer advances w by frame f with in. It is never inlined, so that
// the step benchmarks' baselines call it as a session does.
//
//go:noinline
func SimulateMixer(w *Mixer, in []uint16, f rollnet.Frame) {
	for p, v := range in {
		a := &w.Acc[p%8]
		*a = bits.RotateLeft32(*a^(uint32(v)+1)*0x9e3779b1, 7) + uint32(p+1)*0x85ebca6b
	}
	x := uint32(w.R.Uint64())
	for i := range w.Acc {
		w.Acc[i] += w.Acc[(i+1)%8] ^ x
		x = bits.RotateLeft32(x, 5)
	}
	w.Frame = int32(f)
}

// Epoch is when every cluster's fake clock starts.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Arena is the authoritative mode's test game: a position per player
// moved by its input, accumulators that mix every input, so a wrong input
// on any frame shows in the state, and a host entity moving on its own.
type Arena struct {
	Pos   [8]int32
	Acc   [8]uint32
	H     uint64
	Frame int32
	NPC   int32 // a host entity moving at constant velocity
}

// SimulateArena advances w by frame f with in.
func SimulateArena(w *Arena, in []uint16, f rollnet.Frame) {
	for p, v := range in {
		w.Pos[p%8] += int32(int8(v))
		a := &w.Acc[p%8]
		*a = bits.RotateLeft32(*a^(uint32(v)+1)*0x9e3779b1, 7) + uint32(p+1)*0x85ebca6b
		w.H = (w.H ^ uint64(v) ^ uint64(p)<<16) * 1099511628211
	}
	w.Frame = int32(f)
	w.NPC += 5
}
