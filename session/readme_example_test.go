package session_test

import (
	"fmt"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
)

// The README's rollback session snippet is the body of sessionREADME
// (checked by TestREADMESnippets in package netplay).

type World struct{ X [2]int32 }

type Buttons uint8

func simulate(w *World, in []Buttons, _ rollnet.Frame) {
	for p, b := range in {
		w.X[p] += int32(b)
	}
}

func readButtons() Buttons { return 1 }

func sessionREADME(frame rollnet.Frame, theirButtons Buttons) error {
	s, err := session.New[World](session.Config[Buttons]{Players: 2, InputDelay: 2}, simulate)
	if err != nil {
		return err
	}
	s.AddLocalInput(0, readButtons())        // for frame s.Frame()+InputDelay
	s.AddRemoteInput(1, frame, theirButtons) // whenever it arrives; a contradiction rolls back
	if err := s.AdvanceFrame(); err != nil { // at most one rollback, then this frame
		return err
	}
	sum, err := s.ChecksumAt(s.Frame() - 1) // peers compare min(ConfirmedFrame(), Frame()-1)
	fmt.Printf("frame %d: %08x %v\n", s.Frame()-1, sum, err)
	return nil
}

func Example_readme() {
	if err := sessionREADME(2, 1); err != nil {
		fmt.Println(err)
	}
	// Output: frame 0: 8c28b28a <nil>
}
