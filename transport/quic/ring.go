package quic

import (
	"sync"

	"github.com/rollnet/rollnet/transport"
)

// sendRing holds one peer's datagrams between Send and its send loop: a
// FIFO of cap slots of transport.MaxDatagram bytes, allocated once. push
// and pop copy and never allocate; wake tells the loop there is work.
type sendRing struct {
	mu      sync.Mutex
	data    []byte
	lens    []int32
	head, n int
	wake    chan struct{}
}

func newSendRing(slots int) *sendRing {
	return &sendRing{
		data: make([]byte, slots*transport.MaxDatagram),
		lens: make([]int32, slots),
		wake: make(chan struct{}, 1),
	}
}

// push copies b into the ring unless limit datagrams already wait, and
// reports whether it did.
func (r *sendRing) push(b []byte, limit int) bool {
	r.mu.Lock()
	if r.n >= limit || r.n == len(r.lens) {
		r.mu.Unlock()
		return false
	}
	i := r.head + r.n
	if i >= len(r.lens) {
		i -= len(r.lens)
	}
	r.lens[i] = int32(copy(r.data[i*transport.MaxDatagram:][:transport.MaxDatagram], b))
	r.n++
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
	return true
}

// pop copies the oldest datagram into buf (of transport.MaxDatagram bytes)
// and returns its length, or false when none waits.
func (r *sendRing) pop(buf []byte) (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		return 0, false
	}
	n := copy(buf, r.data[r.head*transport.MaxDatagram:][:r.lens[r.head]])
	r.head++
	if r.head == len(r.lens) {
		r.head = 0
	}
	r.n--
	return n, true
}
