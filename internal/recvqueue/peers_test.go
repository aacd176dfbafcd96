package recvqueue

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/transport"
)

type testPeer struct{ open bool }

// ev is the i'th test event.
func ev(i int) transport.PeerEvent {
	return transport.PeerEvent{Kind: transport.PeerConnected, Peer: transport.Peer(rune('0' + i))}
}

func newTestSet(dropOldest bool) (*PeerSet[*testPeer], *sync.RWMutex, *bool, map[transport.Peer]*testPeer) {
	var mu sync.RWMutex
	closed := new(bool)
	peers := map[transport.Peer]*testPeer{}
	return NewPeerSet[*testPeer](&mu, closed, peers, func(p *testPeer) bool { return p.open }, 2, dropOldest), &mu, closed, peers
}

func TestPeerSetPeersSortedAndOpenOnly(t *testing.T) {
	s, mu, _, peers := newTestSet(false)
	mu.Lock()
	peers["c"], peers["a"], peers["b"] = &testPeer{open: true}, &testPeer{open: true}, &testPeer{}
	mu.Unlock()
	require.Equal(t, []transport.Peer{"x", "a", "c"}, s.Peers([]transport.Peer{"x"}))
}

func TestPeerSetEventBound(t *testing.T) {
	for _, dropOldest := range []bool{false, true} {
		s, mu, _, _ := newTestSet(dropOldest)
		mu.Lock()
		for e := 1; e <= 3; e++ {
			s.EmitLocked(ev(e))
		}
		dropped := s.DroppedLocked()
		mu.Unlock()
		if dropOldest {
			require.Equal(t, []transport.PeerEvent{ev(2), ev(3)}, s.Events(nil))
			require.Zero(t, dropped)
		} else {
			require.Equal(t, []transport.PeerEvent{ev(1), ev(2)}, s.Events(nil))
			require.Equal(t, uint64(1), dropped)
		}
		require.Empty(t, s.Events(nil))
	}
}

func TestPeerSetWaitPeers(t *testing.T) {
	s, mu, closed, peers := newTestSet(false)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan []transport.Peer, 1)
	go func() {
		ps, err := s.WaitPeers(ctx, 1)
		require.NoError(t, err)
		done <- ps
	}()
	mu.Lock()
	peers["a"] = &testPeer{open: true}
	s.EmitLocked(ev(1))
	mu.Unlock()
	select {
	case ps := <-done:
		require.Equal(t, []transport.Peer{"a"}, ps)
	case <-ctx.Done():
		t.Fatal("WaitPeers did not return within 10 s of a peer opening")
	}

	short, stop := context.WithCancel(context.Background())
	stop()
	_, err := s.WaitPeers(short, 2)
	require.ErrorIs(t, err, context.Canceled)

	mu.Lock()
	*closed = true
	s.NotifyLocked()
	mu.Unlock()
	_, err = s.WaitPeers(ctx, 2)
	require.ErrorIs(t, err, transport.ErrClosed)
}

func TestCounters(t *testing.T) {
	q := New(2)
	var c Counters
	a, b := q.Lane("a"), q.Lane("b")
	c.Received(q, a, make([]byte, 10))
	c.Received(q, a, make([]byte, 20))
	c.Received(q, a, make([]byte, 30)) // a holds the most: refused
	require.Equal(t, uint64(2), c.PacketsReceived.Load())
	require.Equal(t, uint64(30), c.BytesReceived.Load())
	require.Equal(t, uint64(1), c.Dropped.Load())

	_, _, err := c.Pop(q, make([]byte, 5))
	require.ErrorIs(t, err, transport.ErrShortBuffer)
	require.Equal(t, uint64(1), c.Short.Load())

	c.Expect(q, []transport.Peer{"b"}) // a's waiting datagram goes
	require.Equal(t, uint64(1), c.Unexpected.Load())
	c.Received(q, a, make([]byte, 1))
	require.Equal(t, uint64(2), c.Unexpected.Load())
	c.Received(q, b, make([]byte, 1))
	require.Equal(t, uint64(3), c.PacketsReceived.Load())

	allocs.RequireZero(t, 100, func() {
		c.Received(q, b, make([]byte, 0))
		_, _, _ = c.Pop(q, make([]byte, transport.MaxDatagram))
	}, "Received and Pop")
}
