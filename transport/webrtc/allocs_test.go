package webrtc

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/transport"
)

// The per-datagram paths of this package allocate nothing: the read loop's
// queue push, Receive, and Send up to the data channel (pion's own write
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

	pkt := make([]byte, 64)
	buf := make([]byte, transport.MaxDatagram)
	allocs := testing.AllocsPerRun(1000, func() {
		if !a.q.push("b", pkt) {
			t.Fatal("queue full")
		}
		if _, _, err := a.Receive(buf); err != nil {
			t.Fatal(err)
		}
		if err := a.Send("b", pkt); err != nil {
			t.Fatal(err)
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
	for i := range 3 {
		require.True(t, q.push("p", []byte{byte(i)}))
	}
	require.False(t, q.push("p", []byte{9}), "full")
	buf := make([]byte, transport.MaxDatagram)
	for i := range 2 {
		n, from, err := q.pop(buf)
		require.NoError(t, err)
		require.Equal(t, []byte{byte(i)}, buf[:n])
		require.Equal(t, transport.Peer("p"), from)
	}
	require.True(t, q.push("q", []byte{3, 4}))
	_, _, err := q.pop(buf[:0])
	require.ErrorIs(t, err, transport.ErrShortBuffer)
	n, from, err := q.pop(buf)
	require.NoError(t, err)
	require.Equal(t, []byte{3, 4}, buf[:n])
	require.Equal(t, transport.Peer("q"), from)
	_, _, err = q.pop(buf)
	require.ErrorIs(t, err, transport.ErrNoPacket)
}
