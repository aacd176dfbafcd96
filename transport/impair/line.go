package impair

import (
	"time"

	"github.com/rollnet/rollnet/transport"
)

// held is one datagram waiting for its delivery time.
type held struct {
	at   time.Time
	seq  uint64         // send order, so that datagrams due together keep it
	peer transport.Peer // to, on the way out; from, on the way in
	b    []byte
}

func (h *held) before(o *held) bool {
	return h.at.Before(o.at) || (h.at.Equal(o.at) && h.seq < o.seq)
}

// line is one direction's datagrams held back: a min-heap by delivery
// time, typed so that holding one allocates nothing (container/heap would
// box each in an interface), with the spare buffers it reuses.
type line struct {
	q    []held
	free [][]byte
	max  int
	seq  uint64
	last time.Time // latest delivery time pushed, for Ordered
}

// newLine holds at most max datagrams. Its buffers are made as the line
// first needs them (a deep queue's worth is megabytes, used only under
// load), at most max+1: max held and Receive's scratch.
func newLine(max int) line {
	return line{q: make([]held, 0, max), free: make([][]byte, 0, max+1), max: max}
}

func (l *line) full() bool { return len(l.q) >= l.max }

// buffer is a spare buffer of transport.MaxDatagram bytes.
func (l *line) buffer() []byte {
	if n := len(l.free); n > 0 {
		b := l.free[n-1]
		l.free = l.free[:n-1]
		return b[:cap(b)]
	}
	return make([]byte, transport.MaxDatagram)
}

func (l *line) release(b []byte) { l.free = append(l.free, b[:0]) }

// push holds b (a buffer from l.buffer) for peer until at.
func (l *line) push(at time.Time, peer transport.Peer, b []byte) {
	l.seq++
	l.q = append(l.q, held{at: at, seq: l.seq, peer: peer, b: b})
	q := l.q
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q[i].before(&q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
	if at.After(l.last) {
		l.last = at
	}
}

// next is the earliest delivery time held; ok is false for an empty line.
func (l *line) next() (time.Time, bool) {
	if len(l.q) == 0 {
		return time.Time{}, false
	}
	return l.q[0].at, true
}

// due pops the earliest datagram if its time has come by now.
func (l *line) due(now time.Time) (held, bool) {
	q := l.q
	if len(q) == 0 || q[0].at.After(now) {
		return held{}, false
	}
	d := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q[last] = held{}
	q = q[:last]
	for i := 0; ; {
		lt, rt, m := 2*i+1, 2*i+2, i
		if lt < len(q) && q[lt].before(&q[m]) {
			m = lt
		}
		if rt < len(q) && q[rt].before(&q[m]) {
			m = rt
		}
		if m == i {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	l.q = q
	return d, true
}
