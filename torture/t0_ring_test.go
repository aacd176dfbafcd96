package torture

import (
	"math/rand/v2"
	"testing"

	"github.com/rollnet/rollnet/internal/ringmodel"
	"github.com/rollnet/rollnet/rollback"
)

// T0: the state ring against its model.
//
// Millions of random operations (edits, commits, rollbacks of every depth,
// peeks, checksums, resets, out-of-range calls) on Ring[T] and Bytes for
// every capacity 1, 2, 4 … 2^10, each checked against the naive model of
// internal/ringmodel: the live state and a slice of copies, newest last.
// After every operation the depth, the live state and the operation's
// result are compared; every capacity-many operations (and after every
// rollback or reset) the whole ring is swept (every Peek, every
// ChecksumAt). Views returned by Peek are kept and must stay unchanged
// until capacity commits have passed.
//
// Default: 2^20 operations per ring form (about 2.1 million in all); raise
// with -torture.scale.

const t0OpsPerForm = 1 << 20

// t0State is a small typed state so that millions of operations stay fast
// under -race; the copy paths for large states are covered by the rollback
// package's own model test.
type t0State struct {
	Frame uint32
	Tag   uint16
	Bits  [2]uint8
	Pos   [2]int64
}

// t0Capacities is every power of two from 1 to 2^10.
func t0Capacities() []int {
	var cs []int
	for c := 1; c <= 1<<10; c <<= 1 {
		cs = append(cs, c)
	}
	return cs
}

// t0Config spreads total evenly over the capacities, with at least
// 4×capacity operations per ring so that even the largest wraps several
// times.
func t0Config(total, capacity int) ringmodel.Config {
	return ringmodel.Config{
		Capacity: capacity,
		Ops:      max(4*capacity, total/len(t0Capacities())),
		ErrDepth: rollback.ErrDepth,
	}
}

func TestT0RingTyped(t *testing.T) {
	t.Parallel()
	total := scaled(t0OpsPerForm)
	for _, c := range t0Capacities() {
		seed := baseSeed()*1_000_003 + uint64(c)
		r, err := rollback.New[t0State](c)
		if err != nil {
			t.Fatal(err)
		}
		ring := ringmodel.Typed(r, rollback.BytesOf[t0State])
		if err := ringmodel.Check(ring, rand.New(rand.NewPCG(seed, 0x70)), t0Config(total, c)); err != nil {
			t.Fatalf("Ring[t0State] capacity %d, -torture.seed %d: %v", c, baseSeed(), err)
		}
	}
}

func TestT0RingBytes(t *testing.T) {
	t.Parallel()
	total := scaled(t0OpsPerForm)
	for i, c := range t0Capacities() {
		seed := baseSeed()*1_000_003 + uint64(c) + 1<<32
		size := []int{1, 3, 8, 17, 64}[i%5]
		r, err := rollback.NewBytes(c, size)
		if err != nil {
			t.Fatal(err)
		}
		if err := ringmodel.Check(r, rand.New(rand.NewPCG(seed, 0x71)), t0Config(total, c)); err != nil {
			t.Fatalf("Bytes capacity %d size %d, -torture.seed %d: %v", c, size, baseSeed(), err)
		}
	}
}
