// Package pool reuses buffers through sync.Pool and orders by address.
package pool

import (
	"sort"
	"sync"
	"unsafe"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
)

type Body struct{ X, V int64 }

type State struct{ Bodies [4]Body }

var scratch = sync.Pool{New: func() any { return new([4]int64) }}

func Start() { // want Start:"hazards 5"
	session.NewSyncTest[State](session.Config[uint8]{}, step)
}

func step(s *State, in []uint8, f rollnet.Frame) { // want step:"hazards 5"
	buf := scratch.Get().(*[4]int64) // want `sync.Pool.Get: which object a sync.Pool hands back`
	for i := range s.Bodies {
		buf[i] += s.Bodies[i].V
	}
	scratch.Put(buf) // want `sync.Pool.Put: which object`
	order := []*Body{&s.Bodies[0], &s.Bodies[1]}
	sort.Slice(order, func(i, j int) bool {
		return uintptr(unsafe.Pointer(order[i])) < uintptr(unsafe.Pointer(order[j])) // want `uintptr\(unsafe.Pointer\(order\[i\]\)\) is an address` `uintptr\(unsafe.Pointer\(order\[j\]\)\) is an address`
	})
	seen := map[*Body]int64{}
	for b := range seen { // want `range over map seen, keyed by pointers`
		b.X++
	}
}
