package webrtc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/internal/recvqueue"
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
	a, err := newOn(Config{LoopbackOnly: true}, pa)
	require.NoError(t, err)
	defer a.Close()
	a.lookup("b", true) // known, not connected: Send drops and counts
	lane := a.q.Lane("b")

	pkt := make([]byte, 64)
	buf := make([]byte, transport.MaxDatagram)
	// On this goroutine only: no channel is open, so all of this runs
	// here, while pion's and the hub's goroutines (and in a browser
	// syscall/js's event dispatch) allocate on their own.
	allocs.RequireZeroHere(t, 1000, func() {
		if a.q.Push(lane, pkt) != recvqueue.Pushed {
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
	}, "a datagram pushed, received, sent and sent bulk")
	var peers []transport.Peer
	var events []transport.PeerEvent
	allocs.RequireZeroHere(t, 100, func() {
		peers = a.Peers(peers[:0])
		events = a.Events(events[:0])
		_ = a.Stats()
	}, "Peers, Events and Stats")
}

// pion allocates per datagram (the data channel's write through SCTP and
// DTLS, and its read loop): this measures one 64-byte datagram from a to
// b over loopback, both ends' goroutines together, and keeps it from
// growing unnoticed. The figure is logged.
func TestPionAllocsPerDatagram(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	a, b := dialPair(t, signalingURL(t), Config{LoopbackOnly: true})
	pkt := make([]byte, 64)
	buf := make([]byte, transport.MaxDatagram)
	oneWay := func() {
		if err := a.Send(b.Local(), pkt); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			if _, _, err := b.Receive(buf); err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("no datagram within 10 s")
			}
			time.Sleep(50 * time.Microsecond)
		}
	}
	for range 100 {
		oneWay() // past SCTP's and the channel's first allocations
	}
	// The mean, not allocs.RequireZero: pion's allocations per datagram
	// (on both ends' goroutines) are not zero and not ours to make so.
	n := testing.AllocsPerRun(500, oneWay)
	t.Logf("pion: %.1f allocations per 64-byte datagram, sender and receiver together", n)
	require.Less(t, n, 200.0, "pion's allocations per datagram grew (about 120 in 2026)")
}
