package webrtc

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/transport"
)

// The per-datagram paths of this package allocate nothing: the read loop's
// queue push, Receive, and Send and SendBulk up to the data channel (pion's own write
// allocates inside SCTP and DTLS, and is not ours to count).
func TestAllocsPerDatagram(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	h := newHub()
	pa := h.join("a")
	a, err := New(Config{LoopbackOnly: true}, pa)
	require.NoError(t, err)
	defer a.Close()
	a.lookup("b", true) // known, not connected: Send drops and counts
	lane := a.q.lane("b")

	pkt := make([]byte, 64)
	buf := make([]byte, transport.MaxDatagram)
	allocs := testing.AllocsPerRun(1000, func() {
		if a.q.push(lane, pkt) != pushed {
			t.Fatal("queue full")
		}
		if _, _, err := a.Receive(buf); err != nil {
			t.Fatal(err)
		}
		if err := a.Send("b", pkt); err != nil {
			t.Fatal(err)
		}
		if taken, err := a.SendBulk("b", pkt); taken || err != nil {
			t.Fatal(taken, err)
		}
		if _, _, err := a.Receive(buf); err != transport.ErrNoPacket {
			t.Fatal(err)
		}
	})
	require.Zero(t, allocs)
	var peers []transport.Peer
	var events []PeerEvent
	allocs = testing.AllocsPerRun(100, func() {
		peers = a.Peers(peers[:0])
		events = a.Events(events[:0])
		_ = a.Stats()
	})
	require.Zero(t, allocs)
}

func TestQueueBoundsAndOrder(t *testing.T) {
	q := newRecvQueue(3)
	p, r := q.lane("p"), q.lane("q")
	for i := range 3 {
		require.Equal(t, pushed, q.push(p, []byte{byte(i)}))
	}
	require.Equal(t, refused, q.push(p, []byte{9}), "full, and p holds it all")
	buf := make([]byte, transport.MaxDatagram)
	for i := range 2 {
		n, from, err := q.pop(buf)
		require.NoError(t, err)
		require.Equal(t, []byte{byte(i)}, buf[:n])
		require.Equal(t, transport.Peer("p"), from)
	}
	require.Equal(t, pushed, q.push(r, []byte{3, 4}))
	// The lanes take turns: q's comes next, and a short buffer drops it.
	_, from, err := q.pop(buf[:0])
	require.ErrorIs(t, err, transport.ErrShortBuffer)
	require.Equal(t, transport.Peer("q"), from)
	n, from, err := q.pop(buf)
	require.NoError(t, err)
	require.Equal(t, []byte{2}, buf[:n])
	require.Equal(t, transport.Peer("p"), from)
	_, _, err = q.pop(buf)
	require.ErrorIs(t, err, transport.ErrNoPacket)
}

// A full queue makes room for a peer holding less than the longest lane by
// dropping that lane's newest datagram; Expect and forget free a lane's
// slots at once.
func TestQueueLongestLaneDrops(t *testing.T) {
	q := newRecvQueue(4)
	p, r := q.lane("p"), q.lane("r")
	for i := range 4 {
		require.Equal(t, pushed, q.push(p, []byte{byte(i)}))
	}
	require.Equal(t, pushedOver, q.push(r, []byte{10}))
	require.Equal(t, pushedOver, q.push(r, []byte{11}))
	require.Equal(t, refused, q.push(r, []byte{12}), "r and p hold two each: r's own is refused")
	buf := make([]byte, transport.MaxDatagram)
	var got []byte
	for {
		n, _, err := q.pop(buf)
		if err != nil {
			require.ErrorIs(t, err, transport.ErrNoPacket)
			break
		}
		got = append(got, buf[:n]...)
	}
	require.Equal(t, []byte{0, 10, 1, 11}, got)

	for i := range 4 {
		require.Equal(t, pushed, q.push(p, []byte{byte(i)}))
	}
	require.Equal(t, 4, q.expect([]transport.Peer{"r"}))
	require.Equal(t, unexpected, q.push(p, []byte{1}))
	require.Equal(t, pushed, q.push(r, []byte{1}))
	q.forget("r")
	require.Equal(t, unexpected, q.push(r, []byte{1}), "a forgotten lane's read loop pushes nothing")
	require.Len(t, q.free, 4, "every slot is free again")
	late := q.lane("late")
	require.Equal(t, unexpected, q.push(late, []byte{1}), "a peer added after Expect is not expected")
	q.expect(nil)
	require.Equal(t, unexpected, q.push(q.lane("p"), []byte{1}))
}
