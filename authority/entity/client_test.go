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

// Playout blends an entity's kept states around the render time, holds
// the newest past it and the oldest before it, blends at most the last 8
// ticks of a longer gap, and forgets a previous occupant's states.
func TestClientPlayout(t *testing.T) {
	c, err := NewClient(ClientConfig{Capacity: 4, Size: 1, History: 3})
	require.NoError(t, err)
	seq := uint32(0)
	send := func(tick uint32, gen uint16, v byte) {
		seq++
		b := appendUpdateHeader(nil, 0, seq, tick, 1)
		b = appendRecord(b, 0, record{index: 2, kind: kindChanged, gen: gen, state: []byte{v}})
		require.NoError(t, c.Receive(finishUpdate(b, 0)))
	}
	at := func(t0 float64) (byte, byte, float32) {
		a, b, alpha, ok := c.Playout(2, t0)
		require.True(t, ok)
		return a[0], b[0], alpha
	}
	send(10, 0, 100)
	send(12, 0, 120)
	send(30, 0, 200)
	a, b, alpha := at(11)
	require.Equal(t, []any{byte(100), byte(120), float32(0.5)}, []any{a, b, alpha})
	a, b, alpha = at(20) // 18 ticks to the next: held until 8 before it
	require.Equal(t, []any{byte(120), byte(120), float32(0)}, []any{a, b, alpha})
	a, b, alpha = at(26)
	require.Equal(t, []any{byte(120), byte(200), float32(0.5)}, []any{a, b, alpha})
	a, b, _ = at(99)
	require.Equal(t, []any{byte(200), byte(200)}, []any{a, b})
	send(31, 0, 210) // the oldest (10) is dropped
	a, b, _ = at(5)
	require.Equal(t, []any{byte(120), byte(120)}, []any{a, b})
	send(40, 1, 50) // a new occupant: none of the old states
	a, b, _ = at(35)
	require.Equal(t, []any{byte(50), byte(50)}, []any{a, b})
	_, _, _, ok := c.Playout(1, 35)
	require.False(t, ok)
}
