// Package initial builds the state every peer starts from on its own:
// the functions that build it are checked as the simulation is.
package initial

import (
	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
)

type World struct {
	Gravity, Friction float64
	Seed              uint64
}

func step(w *World, in []uint8, f rollnet.Frame) {}

// newWorld fuses 0.3 + a*0.01 on arm64: peers start apart.
func newWorld(a float64) World { // want newWorld:"hazards 1"
	return World{Gravity: 0.3 + a*0.01} // want `float multiply a \* 0.01 feeds an add`
}

func friction(a float64) float64 { // want friction:"hazards 1"
	return 1 - a*a // want `float multiply a \* a feeds an add`
}

// unused is never handed to a session: not checked.
func unused(a float64) World { return World{Gravity: 0.3 + a*0.02} } // want unused:"hazards 1"

func Start(a float64) error { // want Start:"hazards 3"
	s, err := session.New[World](session.Config[uint8]{}, step)
	if err != nil {
		return err
	}
	if err := s.SetInitialState(newWorld(a)); err != nil {
		return err
	}
	*s.State() = World{Friction: friction(a)}
	_ = unused
	return nil
}
