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

// queue is an endpoint's bounded receive queue: one lane per sender, each a
// binary min-heap of arrivals by delivery time, over one pool of packet
// buffers shared by the lanes. Receive takes due datagrams from the lanes
// round robin. When the pool is full, an arriving datagram takes the newest
// slot of the longest lane, unless its own lane is the longest: a sender
// can fill only its fair share while others want room (longest queue drop).
// Nothing in it allocates after newQueue, except a lane's heap, once per
// sender.
type queue struct {
	lanes []*lane
	next  int     // the lane Receive looks at first
	used  int     // slots held by all lanes
	free  []int32 // free slots, a stack
	bufs  []byte  // bound × MaxDatagram
}

// lane is one sender's datagrams to the endpoint.
type lane struct {
	link *link
	heap []arrival // cap = the queue's bound
}

func newQueue(bound int) *queue {
	q := &queue{
		free: make([]int32, bound),
		bufs: make([]byte, bound*transport.MaxDatagram),
	}
	for i := range q.free {
		q.free[i] = int32(bound - 1 - i)
	}
	return q
}

func (q *queue) bound() int { return cap(q.free) }

func (q *queue) buf(slot int32) []byte {
	off := int(slot) * transport.MaxDatagram
	return q.bufs[off : off+transport.MaxDatagram : off+transport.MaxDatagram]
}

// lane returns lk's lane, adding it on the sender's first datagram.
func (q *queue) lane(lk *link) *lane {
	if lk.lane != nil && lk.laneOf == q {
		return lk.lane
	}
	l := &lane{link: lk, heap: make([]arrival, 0, q.bound())}
	q.lanes = append(q.lanes, l)
	lk.lane, lk.laneOf = l, q
	return l
}

// push copies b into a free buffer and queues it on l. With the pool full
// it makes room in the longest lane, or refuses b when l is the longest; it
// reports the link of the arrival it dropped (b's or an older one), if
// any. The arrival (lk's, due at, queued seq-th) is built in place.
func (q *queue) push(l *lane, lk *link, at int64, seq uint64, b []byte) (dropped *link) {
	if q.used == q.bound() {
		long := l
		for _, o := range q.lanes {
			if len(o.heap) > len(long.heap) {
				long = o
			}
		}
		if long == l {
			return lk
		}
		long.removeNewest(q)
		dropped = long.link
	}
	slot := q.free[len(q.free)-1]
	q.free = q.free[:len(q.free)-1]
	q.used++
	off := int(slot) * transport.MaxDatagram
	n := copy(q.bufs[off:off+transport.MaxDatagram], b)
	l.heap = append(l.heap, arrival{at: at, seq: seq, link: lk, slot: slot, n: int32(n)})
	if k := len(l.heap) - 1; k > 0 {
		l.up(k)
	}
	return dropped
}

// peek returns the earliest arrival of any lane, or nil.
func (q *queue) peek() *arrival {
	var first *arrival
	for _, l := range q.lanes {
		if len(l.heap) > 0 && (first == nil || l.heap[0].before(first)) {
			first = &l.heap[0]
		}
	}
	return first
}

// due returns the lane whose earliest arrival is the next due at now,
// taking the lanes in turn, or nil. The receiver reads that arrival in
// place (l.heap[0]) and pops it; its buffer stays readable until the next
// push, and the receiver releases its slot.
func (q *queue) due(now int64) *lane {
	k := q.next
	for range q.lanes {
		if k >= len(q.lanes) {
			k = 0
		}
		if l := q.lanes[k]; len(l.heap) > 0 && l.heap[0].at <= now {
			if q.next = k + 1; q.next == len(q.lanes) {
				q.next = 0
			}
			return l
		}
		k++
	}
	return nil
}

// pop removes the lane's earliest arrival (removeAt(0) without its copy).
func (l *lane) pop() {
	last := len(l.heap) - 1
	if last > 0 {
		l.heap[0] = l.heap[last]
	}
	l.heap[last] = arrival{}
	l.heap = l.heap[:last]
	if last > 1 {
		l.down(0)
	}
}

func (q *queue) release(slot int32) {
	q.free = append(q.free, slot)
	q.used--
}

// removeIf drops every arrival of lk's lane (every lane, for a nil lk) for
// which drop is true, releasing its slot.
func (q *queue) removeIf(lk *link, drop func(*arrival) bool) {
	for _, l := range q.lanes {
		if lk != nil && l.link != lk {
			continue
		}
		kept := l.heap[:0]
		for i := range l.heap {
			if drop(&l.heap[i]) {
				q.release(l.heap[i].slot)
				continue
			}
			kept = append(kept, l.heap[i])
		}
		clear(l.heap[len(kept):])
		l.heap = kept
		for i := len(l.heap)/2 - 1; i >= 0; i-- {
			l.down(i)
		}
	}
}

// clearAll drops everything, calling each for every arrival.
func (q *queue) clearAll(each func(*arrival)) {
	q.removeIf(nil, func(a *arrival) bool { each(a); return true })
}

// removeNewest drops the lane's most recently queued arrival, releasing its
// slot.
func (l *lane) removeNewest(q *queue) {
	newest := 0
	for i := range l.heap {
		if l.heap[i].seq > l.heap[newest].seq {
			newest = i
		}
	}
	a := l.removeAt(newest)
	a.link.stats.InFlight--
	q.release(a.slot)
}

// removeAt removes the arrival at heap index i and restores the heap.
func (l *lane) removeAt(i int) arrival {
	a := l.heap[i]
	last := len(l.heap) - 1
	if last == 0 { // the only one: nothing to restore
		l.heap[0] = arrival{}
		l.heap = l.heap[:0]
		return a
	}
	l.heap[i] = l.heap[last]
	l.heap[last] = arrival{}
	l.heap = l.heap[:last]
	if i < last {
		l.down(i)
		l.up(i)
	}
	return a
}

func (l *lane) up(i int) {
	h := l.heap
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (l *lane) down(i int) {
	h := l.heap
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		m := c
		if r := c + 1; r < len(h) && h[r].before(&h[c]) {
			m = r
		}
		if !h[m].before(&h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
