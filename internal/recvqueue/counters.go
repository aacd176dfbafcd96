package recvqueue

import (
	"errors"
	"sync/atomic"

	"github.com/rollnet/rollnet/transport"
)

// Counters are the receive side's counts every transport reports beside
// its Queue. They only grow; the methods allocate nothing.
type Counters struct {
	PacketsReceived atomic.Uint64 // datagrams queued for Receive
	BytesReceived   atomic.Uint64
	// Dropped counts datagrams refused by a full queue or displaced from
	// it by another peer's.
	Dropped atomic.Uint64
	// Unexpected counts datagrams of peers Expect left out: on arrival,
	// or waiting when Expect was called.
	Unexpected atomic.Uint64
	// Short counts datagrams Pop dropped for a short buffer.
	Short atomic.Uint64
}

// Received pushes b, read from lane's peer, into q and counts it, or counts
// why it was dropped.
func (c *Counters) Received(q *Queue, lane *Lane, b []byte) {
	switch q.Push(lane, b) {
	case Unexpected:
		c.Unexpected.Add(1)
		return
	case Refused:
		c.Dropped.Add(1)
		return
	case PushedOver:
		c.Dropped.Add(1)
	}
	c.PacketsReceived.Add(1)
	c.BytesReceived.Add(uint64(len(b)))
}

// Pop is q.Pop, counting a datagram dropped for a short buffer.
func (c *Counters) Pop(q *Queue, buf []byte) (int, transport.Peer, error) {
	n, from, err := q.Pop(buf)
	if errors.Is(err, transport.ErrShortBuffer) {
		c.Short.Add(1)
	}
	return n, from, err
}

// Expect is q.Expect, counting the waiting datagrams it dropped.
func (c *Counters) Expect(q *Queue, peers []transport.Peer) {
	c.Unexpected.Add(uint64(q.Expect(peers)))
}
