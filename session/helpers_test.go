package session

import (
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/rollback"
	"github.com/stretchr/testify/require"
)

// world is the test games' state (the test kit's Mixer): a PRNG and
// accumulators that mix every input strongly, so any wrong input on any
// frame shows in the checksum.
type world = testkit.Mixer

// simWorld is never inlined, so that the step benchmarks' baseline calls
// it as the session does.
var simWorld = testkit.SimulateMixer

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
func worldSum(w *world) uint32 { return rollback.Checksum(rollback.BytesOf(w)) }

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
