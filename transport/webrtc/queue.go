package webrtc

import (
	"sync"

	"github.com/rollnet/rollnet/transport"
)

// recvQueue holds received datagrams until Receive: one FIFO lane per peer
// over one pool of slots of transport.MaxDatagram bytes. pop takes the
// lanes round robin. With the pool full, a datagram takes the newest slot
// of the longest lane, or is dropped when its own lane is the longest: a
// flooding peer fills only its share (longest queue drop). Storage is
// allocated once, a lane once per peer; push and pop copy and never
// allocate.
type recvQueue struct {
	mu    sync.Mutex
	data  []byte  // cap(free) * transport.MaxDatagram
	free  []int32 // free slots, a stack
	lanes []*recvLane
	next  int // the lane pop looks at first

	expecting bool                        // expect was called
	expected  map[transport.Peer]struct{} // the peers named by the latest expect
}

// recvLane is one peer's datagrams, oldest first.
type recvLane struct {
	from     transport.Peer
	expected bool
	ring     []recvSlot // len = the pool's size
	head, n  int
}

type recvSlot struct{ slot, n int32 }

// pushResult says what push did with a datagram.
type pushResult uint8

const (
	pushed     pushResult = iota
	pushedOver            // pushed, in place of another peer's newest datagram
	refused               // dropped: the queue is full and this peer holds the most
	unexpected            // dropped: the peer is not expected
)

func newRecvQueue(n int) *recvQueue {
	q := &recvQueue{
		data: make([]byte, n*transport.MaxDatagram),
		free: make([]int32, n),
	}
	for i := range q.free {
		q.free[i] = int32(n - 1 - i)
	}
	return q
}

// lane returns from's lane, adding it if from has none. It allocates.
func (q *recvQueue) lane(from transport.Peer) *recvLane {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, l := range q.lanes {
		if l.from == from {
			return l
		}
	}
	l := &recvLane{from: from, expected: q.expectsLocked(from), ring: make([]recvSlot, cap(q.free))}
	q.lanes = append(q.lanes, l)
	return l
}

// forget removes from's lane and drops its datagrams.
func (q *recvQueue) forget(from transport.Peer) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, l := range q.lanes {
		if l.from == from {
			l.expected = false // its read loop may still push: refused
			q.dropAllLocked(l)
			q.lanes = append(q.lanes[:i], q.lanes[i+1:]...)
			q.next = 0
			return
		}
	}
}

// expect keeps only the datagrams of peers, now and from now on, and
// reports how many waiting datagrams it dropped.
func (q *recvQueue) expect(peers []transport.Peer) (dropped int) {
	set := make(map[transport.Peer]struct{}, len(peers))
	for _, p := range peers {
		set[p] = struct{}{}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.expecting, q.expected = true, set
	for _, l := range q.lanes {
		l.expected = q.expectsLocked(l.from)
		if !l.expected {
			dropped += q.dropAllLocked(l)
		}
	}
	return dropped
}

// expectAnyone keeps every peer's datagrams from now on, as before the
// first expect.
func (q *recvQueue) expectAnyone() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.expecting, q.expected = false, nil
	for _, l := range q.lanes {
		l.expected = true
	}
}

func (q *recvQueue) expectsLocked(from transport.Peer) bool {
	if !q.expecting {
		return true
	}
	_, ok := q.expected[from]
	return ok
}

func (q *recvQueue) dropAllLocked(l *recvLane) int {
	n := l.n
	for l.n > 0 {
		q.free = append(q.free, l.popOldest().slot)
	}
	return n
}

// push copies b (at most transport.MaxDatagram bytes) into l.
func (q *recvQueue) push(l *recvLane, b []byte) pushResult {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !l.expected {
		return unexpected
	}
	res := pushed
	if len(q.free) == 0 {
		long := l
		for _, o := range q.lanes {
			if o.n > long.n {
				long = o
			}
		}
		if long == l {
			return refused
		}
		long.n--
		q.free = append(q.free, long.ring[long.index(long.n)].slot)
		res = pushedOver
	}
	s := q.free[len(q.free)-1]
	q.free = q.free[:len(q.free)-1]
	l.ring[l.index(l.n)] = recvSlot{slot: s, n: int32(copy(q.data[int(s)*transport.MaxDatagram:][:transport.MaxDatagram], b))}
	l.n++
	return res
}

// pop copies the oldest datagram of the next peer in turn into buf. A
// datagram that does not fit is dropped with transport.ErrShortBuffer.
func (q *recvQueue) pop(buf []byte) (int, transport.Peer, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := range q.lanes {
		k := (q.next + i) % len(q.lanes)
		l := q.lanes[k]
		if l.n == 0 {
			continue
		}
		q.next = (k + 1) % len(q.lanes)
		s := l.popOldest()
		q.free = append(q.free, s.slot)
		if len(buf) < int(s.n) {
			return 0, l.from, transport.ErrShortBuffer
		}
		off := int(s.slot) * transport.MaxDatagram
		return copy(buf, q.data[off:off+int(s.n)]), l.from, nil
	}
	return 0, "", transport.ErrNoPacket
}

// index is the ring position i places after the lane's oldest.
func (l *recvLane) index(i int) int {
	i += l.head
	if i >= len(l.ring) {
		i -= len(l.ring)
	}
	return i
}

func (l *recvLane) popOldest() recvSlot {
	s := l.ring[l.head]
	l.ring[l.head] = recvSlot{}
	l.head = l.index(1)
	l.n--
	return s
}
