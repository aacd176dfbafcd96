package webrtc

import (
	"sync"

	"github.com/rollnet/rollnet/transport"
)

// recvQueue is a bounded ring of received datagrams, each slot holding up
// to transport.MaxDatagram bytes. Storage is allocated once; push and pop
// copy and never allocate.
type recvQueue struct {
	mu    sync.Mutex
	data  []byte // len(slots) * transport.MaxDatagram
	slots []recvSlot
	head  int
	n     int
}

type recvSlot struct {
	from transport.Peer
	n    int
}

func newRecvQueue(n int) *recvQueue {
	return &recvQueue{
		data:  make([]byte, n*transport.MaxDatagram),
		slots: make([]recvSlot, n),
	}
}

// push copies b (at most transport.MaxDatagram bytes) into the queue and
// reports false when the queue is full.
func (q *recvQueue) push(from transport.Peer, b []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n == len(q.slots) {
		return false
	}
	i := q.head + q.n
	if i >= len(q.slots) {
		i -= len(q.slots)
	}
	q.slots[i] = recvSlot{from: from, n: len(b)}
	copy(q.data[i*transport.MaxDatagram:], b)
	q.n++
	return true
}

// pop copies the oldest datagram into buf. A datagram that does not fit is
// dropped with transport.ErrShortBuffer.
func (q *recvQueue) pop(buf []byte) (int, transport.Peer, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n == 0 {
		return 0, "", transport.ErrNoPacket
	}
	s := q.slots[q.head]
	off := q.head * transport.MaxDatagram
	q.slots[q.head] = recvSlot{}
	q.head++
	if q.head == len(q.slots) {
		q.head = 0
	}
	q.n--
	if len(buf) < s.n {
		return 0, s.from, transport.ErrShortBuffer
	}
	return copy(buf, q.data[off:off+s.n]), s.from, nil
}
