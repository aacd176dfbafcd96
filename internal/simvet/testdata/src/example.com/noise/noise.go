// Package noise has package state the simulation cannot carry between
// frames (informational, shown with -info) beside one that it does.
package noise

import (
	"sync"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
)

type State struct{ X, V int64 }

// steps counts frames for profiling: nothing reads it.
var steps int64 // want steps:"written"

// contacts is scratch: cleared before each use.
var contacts []int64 // want contacts:"written"

// table is built once, lazily, from constants.
var table []int64 // want table:"written"

var tableOnce sync.Once

var lut []int64 // want lut:"written"

// carry is real state outside the state: reported.
var carry int64 // want carry:"written"

func Start() { // want Start:"hazards 8\\+"
	session.NewSyncTest[State](session.Config[uint8]{}, step)
}

func step(s *State, in []uint8, f rollnet.Frame) { // want step:"hazards 8\\+"
	steps++
	contacts = contacts[:0]
	contacts = append(contacts, s.X)
	s.V += int64(len(contacts))
	if table == nil {
		table = []int64{1, 2, 3}
	}
	s.X += table[s.V&1]
	tableOnce.Do(func() { lut = []int64{4, 5} })
	s.X += lut[0]
	carry += s.X // want `write to package-level variable carry`
	s.V += carry // want `read of package-level variable carry`
}
