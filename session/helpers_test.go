package session

import (
	"math/bits"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/rollback"
	"github.com/stretchr/testify/require"
)

// world is the test games' state: a PRNG and accumulators that mix every
// input strongly, so any wrong input on any frame shows in the checksum.
type world struct {
	R     rollnet.Rand
	Acc   [8]uint32
	Frame int32
	_     [4]byte
}

// simWorld is never inlined, so that the step benchmarks' baseline calls
// it as the session does (see simEntities).
//
//go:noinline
func simWorld(w *world, in []uint16, f rollnet.Frame) {
	for p, v := range in {
		a := &w.Acc[p%8]
		*a = bits.RotateLeft32(*a^(uint32(v)+1)*0x9e3779b1, 7) + uint32(p+1)*0x85ebca6b
	}
	x := uint32(w.R.Uint64())
	for i := range w.Acc {
		w.Acc[i] += w.Acc[(i+1)%8] ^ x
		x = bits.RotateLeft32(x, 5)
	}
	w.Frame = int32(f)
}

// record is a state that remembers, per frame, the inputs it was last
// simulated with (frame f at index f%64), and how often each frame was
// simulated.
type record struct {
	In    [64][4]uint16
	Count [64]uint32
}

func simRecord(r *record, in []uint16, f rollnet.Frame) {
	copy(r.In[f%64][:], in)
	r.Count[f%64]++
}

// worldSum is the checksum the session computes of a world.
func worldSum(w *world) uint32 { return rollback.Checksum(bytesOf(w)) }

// newWorld returns a session of the test world.
func newWorld(t testing.TB, cfg Config[uint16]) *Session[world, uint16] {
	t.Helper()
	s, err := New[world](cfg, simWorld)
	require.NoError(t, err)
	return s
}

// newRecord returns a session of the recording state.
func newRecord(t testing.TB, cfg Config[uint16]) *Session[record, uint16] {
	t.Helper()
	s, err := New[record](cfg, simRecord)
	require.NoError(t, err)
	return s
}

// step steps and requires success.
func step(t testing.TB, s interface{ AdvanceFrame() error }, n int) {
	t.Helper()
	for range n {
		require.NoError(t, s.AdvanceFrame())
	}
}
