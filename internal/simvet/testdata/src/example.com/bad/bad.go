// Package bad has one simulation with every pattern the analyzer reports.
package bad

import (
	crand "crypto/rand"
	"maps"
	"math"
	"math/rand"
	randv2 "math/rand/v2"
	"os"
	"reflect"
	"time"
	"unsafe"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
)

type State struct {
	X, Y  float64
	N     int32
	_     [4]byte
	Score [2]int64
}

var (
	counter int32            // written by the simulation // want counter:"written"
	cache   = map[int]int{}  // written by remember, outside the simulation // want cache:"written"
	table   = [4]int32{1, 2} // read-only: fine
	ch      = make(chan int32, 1)
)

type Shape interface{ Area() float64 }

var shape Shape

func remember(k int) { cache[k] = k } // want remember:"hazards 1"

func Start() { // want Start:"hazards 8\\+"
	s, _ := session.New[State](session.Config[uint8]{}, simulate)
	_ = s
	remember(1)
}

func simulate(s *State, in []uint8, f rollnet.Frame) { // want simulate:"hazards 8\\+"
	m := map[int32]int32{1: 2}
	for k := range m { // want `range over map m: its order is random`
		s.N += k
	}
	for k := range maps.Keys(m) { // want `range over maps.Keys\(m\): a map's order is random`
		s.N += k
	}
	_ = time.Now()                     // want `time.Now reads the wall clock`
	_ = time.Since(time.Time{})        // want `time.Since reads the wall clock`
	t := time.NewTimer(time.Second)    // want `time.NewTimer reads the wall clock`
	t.Stop()                           // want `time.Timer.Stop reads the wall clock`
	_ = os.Getenv("SEED")              // want `os.Getenv: the process's environment`
	_, _ = os.ReadFile("level.txt")    // want `os.ReadFile: the process's environment`
	_ = os.Args                        // want `os.Args: the process's environment`
	s.N += rand.Int31()                // want `rand.Int31 draws from the global random source`
	s.N += randv2.Int32()              // want `rand.Int32 draws from the global random source`
	_, _ = crand.Read(make([]byte, 4)) // want `rand.Read reads the system's random source`
	go func() {}()                     // want `go statement`
	ch <- 1                            // want `send on channel ch`
	s.N += <-ch                        // want `receive from channel ch`
	select {                           // want `select: which ready case runs is random`
	default:
	}
	for v := range ch { // want `range over channel ch`
		s.N += v
	}
	close(ch)                 // want `close of channel ch`
	s.X = s.X*s.Y + 1         // want `float multiply s.X \* s.Y feeds an add or subtract: Go may fuse them into one FMA on arm64, ppc64le, s390x and riscv64 \(one rounding instead of two\); write float64\(s.X \* s.Y\)`
	counter++                 // a counter nothing reads: informational, shown with -info
	s.N += int32(cache[1])    // want `read of package-level variable cache, which is written outside init`
	s.N += table[1]           // reading a table nothing writes is fine
	p := unsafe.Pointer(&s.N) // want `warning: unsafe.Pointer`
	_ = p
	_ = reflect.ValueOf(s) // want `warning: reflect.ValueOf`
	s.X += shape.Area()    // want `warning: call of Area through interface Shape`
	s.Y = math.Sin(s.X)    // want `warning: math.Sin may round differently on another architecture`
	helper(s)
}

// helper is reached from simulate, so it is checked too.
func helper(s *State) { // want helper:"hazards 2"
	for range map[string]bool{} { // want `range over map`
	}
	s.Score[0] = time.Now().Unix() // want `time.Now reads the wall clock`
}

// notSimulated does everything wrong but is never reached: nothing is
// reported.
func notSimulated() { // want notSimulated:"hazards 4"
	for range map[string]bool{} {
	}
	_ = time.Now()
	go func() {}()
	counter++
}
