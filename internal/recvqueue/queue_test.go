package recvqueue

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/transport"
)

func TestAllocsPushPop(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	q := New(4)
	l := q.Lane("p")
	pkt := make([]byte, 64)
	buf := make([]byte, transport.MaxDatagram)
	allocs.RequireZero(t, 1000, func() {
		if q.Push(l, pkt) != Pushed {
			t.Fatal("queue full")
		}
		if _, _, err := q.Pop(buf); err != nil {
			t.Fatal(err)
		}
	}, "a push and a pop")
}

func TestQueueBoundsAndOrder(t *testing.T) {
	q := New(3)
	p, r := q.Lane("p"), q.Lane("q")
	for i := range 3 {
		require.Equal(t, Pushed, q.Push(p, []byte{byte(i)}))
	}
	require.Equal(t, Refused, q.Push(p, []byte{9}), "full, and p holds it all")
	buf := make([]byte, transport.MaxDatagram)
	for i := range 2 {
		n, from, err := q.Pop(buf)
		require.NoError(t, err)
		require.Equal(t, []byte{byte(i)}, buf[:n])
		require.Equal(t, transport.Peer("p"), from)
	}
	require.Equal(t, Pushed, q.Push(r, []byte{3, 4}))
	// The lanes take turns: q's comes next, and a short buffer drops it.
	_, from, err := q.Pop(buf[:0])
	require.ErrorIs(t, err, transport.ErrShortBuffer)
	require.Equal(t, transport.Peer("q"), from)
	n, from, err := q.Pop(buf)
	require.NoError(t, err)
	require.Equal(t, []byte{2}, buf[:n])
	require.Equal(t, transport.Peer("p"), from)
	_, _, err = q.Pop(buf)
	require.ErrorIs(t, err, transport.ErrNoPacket)
}

// A full queue makes room for a peer holding less than the longest lane by
// dropping that lane's newest datagram; Expect and forget free a lane's
// slots at once.
func TestQueueLongestLaneDrops(t *testing.T) {
	q := New(4)
	p, r := q.Lane("p"), q.Lane("r")
	for i := range 4 {
		require.Equal(t, Pushed, q.Push(p, []byte{byte(i)}))
	}
	require.Equal(t, PushedOver, q.Push(r, []byte{10}))
	require.Equal(t, PushedOver, q.Push(r, []byte{11}))
	require.Equal(t, Refused, q.Push(r, []byte{12}), "r and p hold two each: r's own is refused")
	buf := make([]byte, transport.MaxDatagram)
	var got []byte
	for {
		n, _, err := q.Pop(buf)
		if err != nil {
			require.ErrorIs(t, err, transport.ErrNoPacket)
			break
		}
		got = append(got, buf[:n]...)
	}
	require.Equal(t, []byte{0, 10, 1, 11}, got)

	for i := range 4 {
		require.Equal(t, Pushed, q.Push(p, []byte{byte(i)}))
	}
	require.Equal(t, 4, q.Expect([]transport.Peer{"r"}))
	require.Equal(t, Unexpected, q.Push(p, []byte{1}))
	require.Equal(t, Pushed, q.Push(r, []byte{1}))
	q.Forget("r")
	require.Equal(t, Unexpected, q.Push(r, []byte{1}), "a forgotten lane's read loop pushes nothing")
	require.Len(t, q.free, 4, "every slot is free again")
	late := q.Lane("late")
	require.Equal(t, Unexpected, q.Push(late, []byte{1}), "a peer added after Expect is not expected")
	q.Expect(nil)
	require.Equal(t, Unexpected, q.Push(q.Lane("p"), []byte{1}))
}
