// Package sendqueue holds one peer's datagrams between a transport's Send
// and the network, when they cannot go at once: a FIFO of fixed slots of
// transport.MaxDatagram bytes, allocated once, whose methods copy and
// never allocate.
//
// A datagram that finds the queue at its limit is not dropped: it
// supersedes the oldest waiting datagram of its kind (the same first
// byte, where every rollnet message carries its type; for netplay's
// messages, the wire's TypeApp, the same second byte too: a ping does not
// supersede a game's message), because the
// newest state or input matters, not the first. When no datagram of its
// kind waits, it removes the oldest waiting datagram that a newer one of
// its own kind already follows (superseded by that one: a full queue of
// states and one reply keeps the reply, not the oldest state). Only when
// every waiting kind is alone does it push out the oldest waiting one,
// and a datagram that waited longer than the age limit Pop is given is
// dropped there: both are stale, and counted apart from the superseded. A bulk datagram
// (a catch-up's burst, none of which a later one makes stale) is never
// superseded, pushed out nor aged: a full queue refuses it instead.
package sendqueue

import (
	"sync"
	"time"

	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport"
)

// MaxAge is the age past which the transports drop a waiting datagram as
// stale: 15 frames at 60 Hz, longer than a loaded machine leaves a
// process unscheduled (a cold build beside three busy loops on 2 cores:
// 100 ms was seen), and shorter than the blackout whose backlog must not
// be flushed to the peer when it ends (SCTP resumes about 0.7 s after a
// path heals).
const MaxAge = 250 * time.Millisecond

// Result says what Push did.
type Result uint8

const (
	// Queued: the datagram waits behind those already queued.
	Queued Result = iota
	// Superseded: the datagram was queued and the oldest waiting one of
	// its kind removed, unsent; or, none of its kind waiting, the oldest
	// one a newer one of its own kind follows.
	Superseded
	// PushedOut: the datagram was queued and the oldest waiting one (of
	// another kind) was dropped, stale.
	PushedOut
	// Refused: the queue was full of bulk datagrams; nothing changed.
	Refused
)

// Queue is one peer's queue. Wake receives a value (without blocking the
// pusher) after each push, for a goroutine that drains the queue.
type Queue struct {
	mu      sync.Mutex
	data    []byte
	lens    []int32
	at      []int64 // when each datagram was pushed, in the caller's nanoseconds
	bulk    []bool
	head, n int
	Wake    chan struct{}
}

// New makes a queue of slots datagrams.
func New(slots int) *Queue {
	return &Queue{
		data: make([]byte, slots*transport.MaxDatagram),
		lens: make([]int32, slots),
		at:   make([]int64, slots),
		bulk: make([]bool, slots),
		Wake: make(chan struct{}, 1),
	}
}

// Len is the number of datagrams waiting.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.n
}

// Push queues b (at most transport.MaxDatagram bytes), pushed at now. When
// limit datagrams (or every slot) already wait, b supersedes the oldest
// waiting non-bulk datagram of its kind, or else the oldest non-bulk one
// a newer one of its kind follows supersedes it (both Superseded), or
// else b pushes out the oldest non-bulk one; with none of those it is
// Refused.
func (q *Queue) Push(b []byte, limit int, now int64) Result {
	q.mu.Lock()
	r := Queued
	if q.n >= limit || q.n == len(q.lens) {
		r = q.makeRoomLocked(b)
	}
	if r != Refused {
		q.putLocked(q.slot(q.n), b, now, false)
		q.n++
	}
	q.mu.Unlock()
	if r != Refused {
		q.wake()
	}
	return r
}

// makeRoomLocked makes room in a full queue for b, to be queued last: it
// removes the oldest waiting datagram of b's kind (Superseded), or else
// the oldest one a newer one of its kind follows (Superseded: by that
// one), or else the oldest non-bulk one (PushedOut), or nothing
// (Refused). An empty datagram has no kind.
func (q *Queue) makeRoomLocked(b []byte) Result {
	oldest := -1
	kb, okb := kind(b)
	var waiting [kinds]int32 // non-bulk datagrams of each kind
	for k := range q.n {
		i := q.slot(k)
		if q.bulk[i] {
			continue
		}
		ki, ok := q.kindAt(i)
		if ok && ki == kb && okb {
			q.removeLocked(k)
			return Superseded
		}
		if oldest < 0 {
			oldest = k
		}
		if ok {
			waiting[ki]++
		}
	}
	if oldest < 0 {
		return Refused
	}
	for k := oldest; k < q.n; k++ {
		if i := q.slot(k); !q.bulk[i] {
			if ki, ok := q.kindAt(i); ok && waiting[ki] > 1 {
				q.removeLocked(k)
				return Superseded
			}
		}
	}
	q.removeLocked(oldest)
	return PushedOut
}

// appByte is the first byte of netplay's messages (internal/greeting's
// AppByte: the wire's TypeApp), whose second byte is their kind: a ping
// does not supersede a game's message.
const appByte = wire.Version<<4 | byte(wire.TypeApp)

// kinds is the number of kinds: a first byte, or netplay's second.
const kinds = 512

// kind is b's kind: its first byte, or for netplay's messages 256 and
// their second; an empty datagram (or a netplay one of one byte) has none.
func kind(b []byte) (int, bool) {
	switch {
	case len(b) == 0:
		return 0, false
	case b[0] != appByte:
		return int(b[0]), true
	case len(b) < 2:
		return 0, false
	}
	return 256 + int(b[1]), true
}

// kindAt is the kind of the datagram in slot i.
func (q *Queue) kindAt(i int) (int, bool) {
	return kind(q.data[i*transport.MaxDatagram:][:q.lens[i]])
}

// PushBulk queues b unless limit datagrams (or every slot) already wait,
// and reports whether it did.
func (q *Queue) PushBulk(b []byte, limit int, now int64) bool {
	q.mu.Lock()
	if q.n >= limit || q.n == len(q.lens) {
		q.mu.Unlock()
		return false
	}
	q.putLocked(q.slot(q.n), b, now, true)
	q.n++
	q.mu.Unlock()
	q.wake()
	return true
}

// Pop copies the oldest waiting datagram into buf (of transport.MaxDatagram
// bytes) and returns its length; ok is false when none waits. Non-bulk
// datagrams pushed before notBefore are dropped on the way and counted in
// stale.
func (q *Queue) Pop(buf []byte, notBefore int64) (n, stale int, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.n > 0 {
		i := q.head
		old := !q.bulk[i] && q.at[i] < notBefore
		if !old {
			n = copy(buf, q.data[i*transport.MaxDatagram:][:q.lens[i]])
		}
		q.removeLocked(0)
		if !old {
			return n, stale, true
		}
		stale++
	}
	return 0, stale, false
}

func (q *Queue) slot(k int) int {
	i := q.head + k
	if i >= len(q.lens) {
		i -= len(q.lens)
	}
	return i
}

func (q *Queue) putLocked(i int, b []byte, now int64, bulk bool) {
	q.lens[i] = int32(copy(q.data[i*transport.MaxDatagram:][:transport.MaxDatagram], b))
	q.at[i] = now
	q.bulk[i] = bulk
}

// removeLocked removes the k-th waiting datagram, moving the ones queued
// after it up a slot (k is 0, the head, but when a full queue makes room).
func (q *Queue) removeLocked(k int) {
	if k == 0 {
		q.head = q.slot(1)
		q.n--
		return
	}
	for ; k < q.n-1; k++ {
		i, j := q.slot(k), q.slot(k+1)
		q.lens[i] = int32(copy(q.data[i*transport.MaxDatagram:][:transport.MaxDatagram], q.data[j*transport.MaxDatagram:][:q.lens[j]]))
		q.at[i], q.bulk[i] = q.at[j], q.bulk[j]
	}
	q.n--
}

func (q *Queue) wake() {
	select {
	case q.Wake <- struct{}{}:
	default:
	}
}
