package main

import (
	"container/heap"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/rollnet/rollnet/transport"
)

// impaired wraps a transport and makes every datagram this side sends
// late (latency plus or minus jitter, so some arrive out of order) or lost,
// as -impair asks. It runs on the wall clock: it is for seeing rollback
// at work in the demo, not for tests (those use transport/local).
type impaired struct {
	transport.Transport
	im impairment

	mu      sync.Mutex
	rng     *rand.Rand
	q       packetHeap
	free    [][]byte
	wake    chan struct{}
	done    chan struct{}
	stopped chan struct{}
	closed  bool
	dropped int // lost on purpose
	full    int // dropped because the delay queue was full
}

// impairQueue bounds the datagrams held back at once.
const impairQueue = 1024

type delayed struct {
	at time.Time
	to transport.Peer
	b  []byte
}

type packetHeap []delayed

func (h packetHeap) Len() int           { return len(h) }
func (h packetHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h packetHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *packetHeap) Push(x any)        { *h = append(*h, x.(delayed)) }
func (h *packetHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func newImpaired(inner transport.Transport, im impairment, seed uint32) *impaired {
	t := &impaired{
		Transport: inner,
		im:        im,
		rng:       rand.New(rand.NewPCG(uint64(seed), 0x5eed)),
		wake:      make(chan struct{}, 1),
		done:      make(chan struct{}),
		stopped:   make(chan struct{}),
	}
	go t.run()
	return t
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
	if t.im.Loss > 0 && t.rng.Float64() < t.im.Loss {
		t.dropped++
		return nil
	}
	if len(t.q) >= impairQueue {
		t.full++
		return nil
	}
	delay := t.im.Latency
	if t.im.Jitter > 0 {
		delay += time.Duration(t.rng.Int64N(int64(2*t.im.Jitter)+1)) - t.im.Jitter
	}
	var buf []byte
	if n := len(t.free); n > 0 {
		buf, t.free = t.free[n-1][:0], t.free[:n-1]
	} else {
		buf = make([]byte, 0, transport.MaxDatagram)
	}
	heap.Push(&t.q, delayed{at: time.Now().Add(delay), to: to, b: append(buf, b...)})
	select {
	case t.wake <- struct{}{}:
	default:
	}
	return nil
}

// run sends each held datagram when its time comes.
func (t *impaired) run() {
	defer close(t.stopped)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		t.mu.Lock()
		now := time.Now()
		for len(t.q) > 0 && !t.q[0].at.After(now) {
			d := heap.Pop(&t.q).(delayed)
			_ = t.Transport.Send(d.to, d.b)
			t.free = append(t.free, d.b)
		}
		next := time.Hour
		if len(t.q) > 0 {
			next = t.q[0].at.Sub(now)
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

// lost is how many datagrams were dropped on purpose.
func (t *impaired) lost() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dropped + t.full
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
