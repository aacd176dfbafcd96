package local

import "github.com/rollnet/rollnet/transport"

// arrival is one datagram in flight to, or waiting at, an endpoint.
type arrival struct {
	at   int64 // delivery time, nanoseconds since the network's epoch
	seq  uint64
	link *link // sender side, for the sender's identity and the stats
	slot int32 // index of the packet buffer holding the bytes
	n    int32
}

// before orders arrivals by delivery time, then by the order they were
// queued, so that equal times keep send order and the order is total.
func (a *arrival) before(b *arrival) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// queue is an endpoint's bounded receive queue: a binary min-heap of
// arrivals over fixed storage, and a pool of packet buffers with a free
// list. Nothing in it allocates after newQueue.
type queue struct {
	heap []arrival // len = waiting, cap = bound
	free []int32   // free slots, a stack
	bufs []byte    // bound × MaxDatagram
}

func newQueue(bound int) *queue {
	q := &queue{
		heap: make([]arrival, 0, bound),
		free: make([]int32, bound),
		bufs: make([]byte, bound*transport.MaxDatagram),
	}
	for i := range q.free {
		q.free[i] = int32(bound - 1 - i)
	}
	return q
}

func (q *queue) full() bool { return len(q.heap) == cap(q.heap) }

func (q *queue) buf(slot int32) []byte {
	off := int(slot) * transport.MaxDatagram
	return q.bufs[off : off+transport.MaxDatagram : off+transport.MaxDatagram]
}

// push copies b into a free buffer and queues it. The caller checks full.
func (q *queue) push(a arrival, b []byte) {
	a.slot = q.free[len(q.free)-1]
	q.free = q.free[:len(q.free)-1]
	a.n = int32(copy(q.buf(a.slot), b))
	q.heap = append(q.heap, a)
	q.up(len(q.heap) - 1)
}

// peek returns the earliest arrival, or nil.
func (q *queue) peek() *arrival {
	if len(q.heap) == 0 {
		return nil
	}
	return &q.heap[0]
}

// pop removes the earliest arrival; its buffer stays readable until the
// next push. The caller releases its slot.
func (q *queue) pop() arrival {
	a := q.heap[0]
	last := len(q.heap) - 1
	q.heap[0] = q.heap[last]
	q.heap[last] = arrival{}
	q.heap = q.heap[:last]
	if last > 0 {
		q.down(0)
	}
	return a
}

func (q *queue) release(slot int32) { q.free = append(q.free, slot) }

// removeIf drops every arrival for which drop is true, releasing its slot,
// and restores the heap.
func (q *queue) removeIf(drop func(*arrival) bool) {
	kept := q.heap[:0]
	for i := range q.heap {
		if drop(&q.heap[i]) {
			q.release(q.heap[i].slot)
			continue
		}
		kept = append(kept, q.heap[i])
	}
	clear(q.heap[len(kept):])
	q.heap = kept
	for i := len(q.heap)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

// clearAll drops everything, calling each for every arrival.
func (q *queue) clearAll(each func(*arrival)) {
	q.removeIf(func(a *arrival) bool { each(a); return true })
}

func (q *queue) up(i int) {
	h := q.heap
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *queue) down(i int) {
	h := q.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].before(&h[l]) {
			m = r
		}
		if !h[m].before(&h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
