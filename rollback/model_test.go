package rollback

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rollnet/rollnet/internal/ringmodel"
	"github.com/stretchr/testify/require"
)

// The model test: Ring[T] and Bytes against the naive model of
// internal/ringmodel (shared with the torture tier T0, which runs it for
// millions of operations over every capacity to 2^10), here on the state
// shapes this package's copy paths tell apart, checking every commit held
// after every operation.

// modelState is the typed state of the model test: integers and bytes
// only, so any byte pattern is a valid value.
type modelState struct {
	Frame  uint32
	Pos    [3]int16
	Flags  uint16
	Health [4]uint8
	Seed   uint64
	Tail   [8]uint8
}

// bigState is at least bulkCopyMin bytes, so its ring copies with memmove
// rather than by assignment.
type bigState struct {
	Frame uint32
	_     [4]byte
	Grid  [80]uint64
	Tail  [100]uint8
	_     [4]byte
}

// checkModel runs the model over r for ops operations, sweeping every
// commit held after each one.
func checkModel(t *testing.T, r ringmodel.Ring, capacity, ops int, rng *rand.Rand) {
	t.Helper()
	cfg := ringmodel.Config{Capacity: capacity, Ops: ops, ErrDepth: ErrDepth, SweepEvery: 1}
	require.NoError(t, ringmodel.Check(r, rng, cfg))
}

func TestRingMatchesModel(t *testing.T) {
	for _, capacity := range []int{1, 2, 8, 64} {
		t.Run(fmt.Sprintf("cap%d", capacity), func(t *testing.T) {
			seed := uint64(capacity)*0x9e3779b97f4a7c15 + 1
			t.Logf("seed %d", seed)
			r, err := New[modelState](capacity)
			require.NoError(t, err)
			checkModel(t, ringmodel.Typed(r, BytesOf[modelState]), capacity, 4000, rand.New(rand.NewPCG(seed, 2)))
		})
		t.Run(fmt.Sprintf("big/cap%d", capacity), func(t *testing.T) {
			seed := uint64(capacity) + 77
			t.Logf("seed %d", seed)
			r, err := New[bigState](capacity)
			require.NoError(t, err)
			require.True(t, bulk[bigState](), "bigState must take the memmove path")
			checkModel(t, ringmodel.Typed(r, BytesOf[bigState]), capacity, 1500, rand.New(rand.NewPCG(seed, 4)))
		})
	}
}

func TestBytesMatchesModel(t *testing.T) {
	for _, capacity := range []int{1, 2, 8, 64} {
		for _, size := range []int{1, 7, 64} {
			t.Run(fmt.Sprintf("cap%d/size%d", capacity, size), func(t *testing.T) {
				seed := uint64(capacity)<<8 | uint64(size)
				t.Logf("seed %d", seed)
				r, err := NewBytes(capacity, size)
				require.NoError(t, err)
				require.Len(t, r.Live(), size)
				checkModel(t, r, capacity, 3000, rand.New(rand.NewPCG(seed, 3)))
			})
		}
	}
}
