// Package good has a simulation written by the rules: nothing is reported.
package good

import (
	"maps"
	"math"
	"math/rand"
	"slices"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
)

type State struct {
	Rng  rollnet.Rand
	X, Y float64
	V    [2]float32
	N    int32
	_    [4]byte
}

// table is only written in init: a constant in all but name.
var table [8]int32

func init() {
	for i := range table {
		table[i] = int32(i * i)
	}
}

const k = 2.5

func Start() {
	_, _ = authority.NewHost[State, uint8](authority.HostConfig[uint8]{}, nil, simulate)
	_, _ = authority.NewClient[State, uint8](authority.ClientConfig{}, nil, simulate)
}

func simulate(s *State, in []uint8, f rollnet.Frame) {
	s.X = float64(s.X*s.Y) + 1           // converted: rounded, not fused
	s.Y = float64(s.X*k) - s.Y           // converted
	s.V[0] = float32(s.V[0]*s.V[1]) + 1  // float32 too
	s.N = s.N*3 + int32(f)               // integers are never fused
	s.X = math.Sqrt(s.X) + math.Abs(s.Y) // exact everywhere
	const c = 2.0 * 3.0
	s.Y = c*k + s.Y // a constant product is folded, not fused
	s.X = (s.X + s.Y) * 2
	d := time.Duration(f) * time.Millisecond // durations are integers
	_ = d.Seconds()
	m := map[int32]int32{1: 2, 3: 4}
	for _, key := range slices.Sorted(maps.Keys(m)) { // sorted: fine
		s.N += m[key]
	}
	r := rand.New(rand.NewSource(int64(s.Rng.Uint64()))) // an explicit source
	s.N += r.Int31()
	s.N += table[s.N&7]
	var lits = [3]int32{1, 2, 3}
	for i := range lits {
		s.N += lits[i]
	}
	//rollnet:ok the wall clock only labels a debug line, never the state
	_ = time.Now()
	_ = time.Now() //rollnet:ok same, on the line itself
	debug(s)
}

// debug prints nothing but reads the clock: its doc comment covers it.
//
//rollnet:ok debug timing, not part of the state
func debug(s *State) {
	_ = time.Since(time.Time{})
}
