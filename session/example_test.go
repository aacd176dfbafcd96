package session_test

import (
	"fmt"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
)

// game is a tiny deterministic state: two positions and a PRNG, all
// fixed-width and pointer-free.
type game struct {
	R rollnet.Rand
	X [2]int32
}

// move applies both players' inputs (0 left, 1 stay, 2 right) and a
// little in-state randomness.
func move(g *game, in []uint8, _ rollnet.Frame) {
	for p, b := range in {
		g.X[p] += int32(b) - 1
	}
	if g.R.Uint32N(8) == 0 {
		g.X[0], g.X[1] = g.X[1], g.X[0]
	}
}

// Two peers, each with one local player, receive each other's inputs 4
// frames late. Both predict, roll back when a prediction was wrong, and
// agree on every confirmed frame.
func Example() {
	cfg := session.Config[uint8]{Players: 2, InputDelay: 1}
	a, err := session.New[game](cfg, move)
	if err != nil {
		panic(err)
	}
	b, _ := session.New[game](cfg, move)
	a.State().R = rollnet.NewRand(1) // the same initial state on both
	b.State().R = rollnet.NewRand(1)

	type msg struct {
		frame rollnet.Frame
		in    uint8
		due   int
	}
	var toA, toB []msg
	deliver := func(s *session.Session[game, uint8], player int, q []msg, now int) []msg {
		for len(q) > 0 && q[0].due <= now {
			if err := s.AddRemoteInput(player, q[0].frame, q[0].in); err != nil {
				panic(err)
			}
			q = q[1:]
		}
		return q
	}
	for now := range 120 {
		toA = deliver(a, 1, toA, now)
		toB = deliver(b, 0, toB, now)
		inA, inB := uint8(now/10%3), uint8(now/7%3)
		_ = a.AddLocalInput(0, inA)
		_ = b.AddLocalInput(1, inB)
		toB = append(toB, msg{a.Frame() + 1, inA, now + 4})
		toA = append(toA, msg{b.Frame() + 1, inB, now + 4})
		if err := a.AdvanceFrame(); err != nil {
			panic(err)
		}
		if err := b.AdvanceFrame(); err != nil {
			panic(err)
		}
	}
	f := min(a.ConfirmedFrame(), b.ConfirmedFrame())
	sa, _ := a.ChecksumAt(f)
	sb, _ := b.ChecksumAt(f)
	fmt.Printf("frame %d: checksums agree: %v\n", f, sa == sb)
	fmt.Printf("peer a rolled back %d times, at most %d frames\n", a.Stats().Rollbacks, a.Stats().MaxRollbackDepth)
	// Output:
	// frame 116: checksums agree: true
	// peer a rolled back 16 times, at most 3 frames
}

// A game's tests run its simulation under a sync test, which re-simulates
// every frame and reports any nondeterminism.
func ExampleNewSyncTest() {
	st, err := session.NewSyncTest[game](session.SyncTestConfig[uint8]{
		Config:        session.Config[uint8]{Players: 2},
		CheckDistance: 4,
	}, move)
	if err != nil {
		panic(err)
	}
	for f := range 200 {
		_ = st.AddLocalInput(0, uint8(f%3))
		_ = st.AddLocalInput(1, uint8(f/3%3))
		if err := st.AdvanceFrame(); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println("deterministic through frame", st.Frame()-1)
	// Output:
	// deterministic through frame 199
}
