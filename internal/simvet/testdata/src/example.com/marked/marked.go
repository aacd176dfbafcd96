// Package marked has simulations found by //rollnet:simulate.
package marked

import "time"

type World struct{ T float64 }

// Step is a simulation no constructor in this package is given.
//
//rollnet:simulate
func Step(w *World, in []uint8, f int32) { // want Step:"hazards 1" Step:"simulate"
	w.T = w.T*2 + 1 // want `float multiply w.T \* 2 feeds an add`
}

// Build returns a simulation; the functions given to it are part of it.
//
//rollnet:simulate
func Build(madd func(x, y, z float64) float64) func(*World) { // want Build:"simulate"
	return func(w *World) { w.T = madd(w.T, 2, 1) }
}

func fused(x, y, z float64) float64 { return x*y + z } // want `float multiply x \* y feeds an add` fused:"hazards 1"

func converted(x, y, z float64) float64 { return float64(x*y) + z }

func unused(x, y, z float64) float64 { return x*y + z } // never given to Build: not reported // want unused:"hazards 1"

var _ = Build(fused)
var _ = Build(converted)

func clock() { // want clock:"hazards 1"
	_ = time.Now() //rollnet:ok // want `//rollnet:ok needs a reason`
}
