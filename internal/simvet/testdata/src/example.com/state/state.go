// Package state has state types the ring refuses, found statically.
package state

import (
	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/replay"
	"github.com/rollnet/rollnet/session"
)

type Good struct {
	A int64
	B [3]int32
	_ [4]byte
}

type Player struct {
	Name string
	HP   int32
}

type (
	WithInt     struct{ N int }
	WithUint    struct{ N uint }
	WithUintptr struct{ N uintptr }
	WithPtr     struct{ P *int32 }
	WithSlice   struct{ S []int32 }
	WithMap     struct{ M map[int32]int32 }
	WithNested  struct{ Players [2]Player }
	WithIface   struct{ I any }
	Padded      struct {
		A int8
		B int64
	}
	TailPadded struct {
		A int64
		B int32
	}
	Empty struct{}
)

func sim[S any](*S, []uint8, rollnet.Frame) {}

func Start() {
	cfg := session.Config[uint8]{}
	session.New[Good](cfg, sim[Good])
	session.New[WithInt](cfg, sim[WithInt])                       // want `state type WithInt: WithInt.N: int is not allowed \(its width depends on the platform`
	session.New[WithUint](cfg, sim[WithUint])                     // want `WithUint.N: uint is not allowed`
	session.New[WithUintptr](cfg, sim[WithUintptr])               // want `WithUintptr.N: uintptr is not allowed`
	session.New[WithPtr](cfg, sim[WithPtr])                       // want `WithPtr.P: \*int32 is not allowed`
	session.New[WithSlice](cfg, sim[WithSlice])                   // want `WithSlice.S: \[\]int32 is not allowed`
	session.New[WithMap](cfg, sim[WithMap])                       // want `WithMap.M: map\[int32\]int32 is not allowed`
	session.New[WithNested](cfg, sim[WithNested])                 // want `WithNested.Players\[\].Name: string is not allowed`
	session.New[WithIface](cfg, sim[WithIface])                   // want `WithIface.I: any is not allowed`
	session.New[Padded](cfg, sim[Padded])                         // want `Padded.B: 7 bytes of compiler padding before this field`
	session.New[TailPadded](cfg, sim[TailPadded])                 // want `TailPadded: 4 bytes of compiler padding at the end of the struct`
	session.New[Empty](cfg, sim[Empty])                           // want `Empty: zero-size type is not allowed`
	replay.NewRecorder[WithInt, uint8](replay.Config{}, nil, nil) // want `WithInt.N: int is not allowed`
	p2p.New[Good](p2p.Config[uint8]{}, nil, sim[Good])
	p2p.NewSpectator[Padded](p2p.Config[uint8]{}, nil, sim[Padded]) // want `Padded.B: 7 bytes`
	//rollnet:ok this test wants the ring to refuse it
	replay.NewReplayer[WithInt](replay.Config{}, nil, sim[WithInt])
	harness(sim[WithMap])
}

// harness is generic: its state is checked where it is instantiated, not
// here.
func harness[S any](simulate func(*S, []uint8, rollnet.Frame)) {
	session.New[S](session.Config[uint8]{}, simulate)
}
