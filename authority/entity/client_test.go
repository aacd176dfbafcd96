package entity

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The ack names the newest update and the 64 before it: a jump of 64
// keeps the previous newest (bit 63), a jump of 65 drops it, a late
// update within the window is named, one older is dropped unapplied.
func TestClientAckWindow(t *testing.T) {
	empty := func(seq uint32) []byte {
		return finishUpdate(appendUpdateHeader(nil, 0, seq, seq, 0), 0)
	}
	c, err := NewClient(ClientConfig{Capacity: 4, Size: 1})
	require.NoError(t, err)
	require.Empty(t, c.AppendAck(nil), "an ack before any update")
	last := func() ack {
		a, _, err := parseAck(c.AppendAck(nil))
		require.NoError(t, err)
		return a
	}
	require.NoError(t, c.Receive(empty(1)))
	require.NoError(t, c.Receive(empty(65)))
	a := last()
	require.Equal(t, uint32(65), a.seq)
	require.Equal(t, uint64(1)<<63, a.bits)
	require.NoError(t, c.Receive(empty(130)))
	require.Zero(t, last().bits)
	require.NoError(t, c.Receive(empty(100))) // late, within the window
	require.Equal(t, uint64(1)<<29, last().bits)
	require.NoError(t, c.Receive(empty(65)))  // older than the window
	require.NoError(t, c.Receive(empty(100))) // a duplicate
	s := c.Stats()
	require.Equal(t, uint64(2), s.Late)
	require.Equal(t, uint64(4), s.Updates)
	require.Equal(t, uint64(63+64), s.Gaps)
}
