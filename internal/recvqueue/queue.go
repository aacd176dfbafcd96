// Package recvqueue is the bounded, fair receive queue that rollnet's
// network transports share (transport/webrtc, transport/quic): one FIFO
// lane per peer over one pool of slots allocated once, taken round robin,
// with longest-lane drop when full and the Expect gate of
// transport.Expecter. Push and Pop copy and never allocate. Beside it,
// what those transports also share: the receive Counters, and the
// PeerSet behind their transport.PeerSet.
package recvqueue

import (
	"sync"

	"github.com/rollnet/rollnet/transport"
)

// Queue holds received datagrams until a transport's Receive: one FIFO
// lane per peer over one pool of slots of transport.MaxDatagram bytes. Pop
// takes the lanes round robin. With the pool full, a datagram takes the
// newest slot of the longest lane, or is dropped when its own lane is the
// longest: a flooding peer fills only its share (longest queue drop).
// Storage is allocated once, a lane once per peer; Push and Pop copy and
// never allocate.
type Queue struct {
	mu    sync.Mutex
	data  []byte  // cap(free) * transport.MaxDatagram
	free  []int32 // free slots, a stack
	lanes []*Lane
	next  int // the lane pop looks at first

	expecting bool                        // Expect was called
	expected  map[transport.Peer]struct{} // the peers named by the latest Expect
}

// Lane is one peer's datagrams, oldest first.
type Lane struct {
	from     transport.Peer
	expected bool
	ring     []slot // len = the pool's size
	head, n  int
}

type slot struct{ slot, n int32 } // a pool slot and the datagram's length

// Result says what Push did with a datagram.
type Result uint8

// The results of Push.
const (
	Pushed     Result = iota
	PushedOver        // pushed, in place of another peer's newest datagram
	Refused           // dropped: the queue is full and this peer holds the most
	Unexpected        // dropped: the peer is not expected
)

// New returns a Queue of n slots of transport.MaxDatagram bytes.
func New(n int) *Queue {
	q := &Queue{
		data: make([]byte, n*transport.MaxDatagram),
		free: make([]int32, n),
	}
	for i := range q.free {
		q.free[i] = int32(n - 1 - i)
	}
	return q
}

// Lane returns from's lane, adding it if from has none. It allocates.
func (q *Queue) Lane(from transport.Peer) *Lane {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, l := range q.lanes {
		if l.from == from {
			return l
		}
	}
	l := &Lane{from: from, expected: q.expectsLocked(from), ring: make([]slot, cap(q.free))}
	q.lanes = append(q.lanes, l)
	return l
}

// Forget removes from's lane and drops its datagrams.
func (q *Queue) Forget(from transport.Peer) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, l := range q.lanes {
		if l.from == from {
			l.expected = false // its read loop may still push: Unexpected
			q.dropAllLocked(l)
			q.lanes = append(q.lanes[:i], q.lanes[i+1:]...)
			q.next = 0
			return
		}
	}
}

// Expect keeps only the datagrams of peers, now and from now on, and
// reports how many waiting datagrams it dropped.
func (q *Queue) Expect(peers []transport.Peer) (dropped int) {
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

// ExpectAnyone keeps every peer's datagrams from now on, as before the
// first Expect.
func (q *Queue) ExpectAnyone() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.expecting, q.expected = false, nil
	for _, l := range q.lanes {
		l.expected = true
	}
}

func (q *Queue) expectsLocked(from transport.Peer) bool {
	if !q.expecting {
		return true
	}
	_, ok := q.expected[from]
	return ok
}

func (q *Queue) dropAllLocked(l *Lane) int {
	n := l.n
	for l.n > 0 {
		q.free = append(q.free, l.popOldest().slot)
	}
	return n
}

// Push copies b (at most transport.MaxDatagram bytes) into l.
func (q *Queue) Push(l *Lane, b []byte) Result {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !l.expected {
		return Unexpected
	}
	res := Pushed
	if len(q.free) == 0 {
		long := l
		for _, o := range q.lanes {
			if o.n > long.n {
				long = o
			}
		}
		if long == l {
			return Refused
		}
		long.n--
		q.free = append(q.free, long.ring[long.index(long.n)].slot)
		res = PushedOver
	}
	s := q.free[len(q.free)-1]
	q.free = q.free[:len(q.free)-1]
	l.ring[l.index(l.n)] = slot{slot: s, n: int32(copy(q.data[int(s)*transport.MaxDatagram:][:transport.MaxDatagram], b))}
	l.n++
	return res
}

// Pop copies the oldest datagram of the next peer in turn into buf. A
// datagram that does not fit is dropped with transport.ErrShortBuffer.
func (q *Queue) Pop(buf []byte) (int, transport.Peer, error) {
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
func (l *Lane) index(i int) int {
	i += l.head
	if i >= len(l.ring) {
		i -= len(l.ring)
	}
	return i
}

func (l *Lane) popOldest() slot {
	s := l.ring[l.head]
	l.ring[l.head] = slot{}
	l.head = l.index(1)
	l.n--
	return s
}
