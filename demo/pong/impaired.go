package main

import (
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/rollnet/rollnet/transport"
)

// impaired wraps a transport and makes every datagram late (latency plus
// or minus jitter, so some arrive out of order) or lost, as -impair asks,
// in each direction: what this side sends and what it receives. Both
// directions, so the player who asks for impairment sees its rollbacks on
// the screen they watch (impairing only what this side sends made the
// opponent's process do the rolling back). It runs on the wall clock: it
// is for seeing rollback at work in the demo, not for tests of the
// protocol (those use transport/local).
type impaired struct {
	transport.Transport
	im impairment

	mu      sync.Mutex
	rng     *rand.Rand
	out, in delayLine // held back on the way out, on the way in
	free    [][]byte
	wake    chan struct{}
	done    chan struct{}
	stopped chan struct{}
	closed  bool
	lostOut int // sent datagrams lost on purpose, or for a full delay line
	lostIn  int // received datagrams lost on purpose
}

// impairQueue bounds the datagrams held back at once, each way.
const impairQueue = 1024

type delayed struct {
	at   time.Time
	peer transport.Peer // to, on the way out; from, on the way in
	b    []byte
}

// delayLine is a min-heap of datagrams by due time, typed so that holding
// one back allocates nothing (container/heap boxes each in an interface).
type delayLine []delayed

func (h *delayLine) push(d delayed) {
	*h = append(*h, d)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q[i].at.Before(q[p].at) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

// due pops the earliest datagram if its time has come by now.
func (h *delayLine) due(now time.Time) (delayed, bool) {
	q := *h
	if len(q) == 0 || q[0].at.After(now) {
		return delayed{}, false
	}
	d := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q[last] = delayed{}
	q = q[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(q) && q[l].at.Before(q[m].at) {
			m = l
		}
		if r < len(q) && q[r].at.Before(q[m].at) {
			m = r
		}
		if m == i {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	*h = q
	return d, true
}

func newImpaired(inner transport.Transport, im impairment, seed uint32) *impaired {
	t := &impaired{
		Transport: inner,
		im:        im,
		rng:       rand.New(rand.NewPCG(uint64(seed), 0x5eed)),
		out:       make(delayLine, 0, impairQueue),
		in:        make(delayLine, 0, impairQueue),
		wake:      make(chan struct{}, 1),
		done:      make(chan struct{}),
		stopped:   make(chan struct{}),
	}
	go t.run()
	return t
}

// lose reports whether the next datagram is lost; t.mu is held.
func (t *impaired) lose() bool { return t.im.Loss > 0 && t.rng.Float64() < t.im.Loss }

// delay is the next datagram's delay; t.mu is held.
func (t *impaired) delay() time.Duration {
	d := t.im.Latency
	if t.im.Jitter > 0 {
		d += time.Duration(t.rng.Int64N(int64(2*t.im.Jitter)+1)) - t.im.Jitter
	}
	return d
}

// buffer is a spare datagram buffer; t.mu is held.
func (t *impaired) buffer() []byte {
	if n := len(t.free); n > 0 {
		b := t.free[n-1][:0]
		t.free = t.free[:n-1]
		return b
	}
	return make([]byte, 0, transport.MaxDatagram)
}

// Send holds b back (or loses it) and returns at once.
func (t *impaired) Send(to transport.Peer, b []byte) error {
	if len(b) > transport.MaxDatagram {
		return transport.ErrTooLarge
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return transport.ErrClosed
	}
	if t.lose() || len(t.out) >= impairQueue {
		t.lostOut++
		return nil
	}
	t.out.push(delayed{at: time.Now().Add(t.delay()), peer: to, b: append(t.buffer(), b...)})
	select {
	case t.wake <- struct{}{}:
	default:
	}
	return nil
}

// Receive takes in what has arrived (losing some and holding the rest
// back) and returns the earliest datagram whose time has come.
func (t *impaired) Receive(buf []byte) (int, transport.Peer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return 0, "", transport.ErrClosed
	}
	now := time.Now()
	for len(t.in) < impairQueue { // a full line leaves the rest in the transport
		b := t.buffer()
		n, from, err := t.Transport.Receive(b[:cap(b)])
		if err != nil {
			t.free = append(t.free, b)
			if errors.Is(err, transport.ErrNoPacket) {
				break
			}
			return 0, "", err
		}
		if t.lose() {
			t.lostIn++
			t.free = append(t.free, b)
			continue
		}
		t.in.push(delayed{at: now.Add(t.delay()), peer: from, b: b[:n]})
	}
	d, ok := t.in.due(now)
	if !ok {
		return 0, "", transport.ErrNoPacket
	}
	n := copy(buf, d.b)
	t.free = append(t.free, d.b)
	return n, d.peer, nil
}

// run sends each held datagram when its time comes.
func (t *impaired) run() {
	defer close(t.stopped)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		t.mu.Lock()
		now := time.Now()
		for {
			d, ok := t.out.due(now)
			if !ok {
				break
			}
			_ = t.Transport.Send(d.peer, d.b)
			t.free = append(t.free, d.b)
		}
		next := time.Hour
		if len(t.out) > 0 {
			next = t.out[0].at.Sub(now)
		}
		t.mu.Unlock()
		timer.Reset(next)
		select {
		case <-t.done:
			return
		case <-t.wake:
		case <-timer.C:
		}
	}
}

// lost is how many datagrams were dropped on purpose, received and sent.
func (t *impaired) lost() (in, out int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lostIn, t.lostOut
}

// Close stops the delay line; the wrapped transport is the caller's.
func (t *impaired) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	t.mu.Unlock()
	close(t.done)
	<-t.stopped
	return nil
}
