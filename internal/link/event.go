package link

import "github.com/rollnet/rollnet"

// EventQueue holds events until the game drains them. It never grows past
// its capacity: when full, the oldest event is dropped and counted.
type EventQueue struct {
	buf     []rollnet.Event
	head, n int
	dropped int
}

// NewEventQueue returns a queue of capacity events.
func NewEventQueue(capacity int) EventQueue { return EventQueue{buf: make([]rollnet.Event, capacity)} }

// Push queues e, dropping the oldest event when full.
func (q *EventQueue) Push(e rollnet.Event) {
	if q.n == len(q.buf) {
		q.head = (q.head + 1) % len(q.buf)
		q.n--
		q.dropped++
	}
	q.buf[(q.head+q.n)%len(q.buf)] = e
	q.n++
}

// Drain appends every queued event to dst, oldest first, and empties the
// queue.
func (q *EventQueue) Drain(dst []rollnet.Event) []rollnet.Event {
	for i := 0; i < q.n; i++ {
		dst = append(dst, q.buf[(q.head+i)%len(q.buf)])
	}
	q.head, q.n = 0, 0
	return dst
}
