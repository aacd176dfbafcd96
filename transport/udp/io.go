package udp

import "net/netip"

// batch is a run of datagrams for one system call: buffers of maxPacket
// bytes (and a little more, to tell an oversized datagram), lengths and
// addresses, allocated once. A send batch also keeps what its queue needs
// to know of each datagram (out).
type batch struct {
	bufs  [][]byte
	lens  []int
	addrs []netip.AddrPort
	// stamps are when the kernel received each datagram read, the real
	// clock's Unix nanoseconds (0 when not known: read batches on Linux
	// only).
	stamps []int64
	out    []outMeta // send batches only
	n      int       // datagrams in it
}

// readBufSize is a receive buffer: a datagram that fills it is over any
// packet of ours.
const readBufSize = maxPacket + 1

func newBatch(n, size int) *batch {
	b := &batch{bufs: make([][]byte, n), lens: make([]int, n), addrs: make([]netip.AddrPort, n), stamps: make([]int64, n)}
	mem := make([]byte, n*size)
	for i := range b.bufs {
		b.bufs[i] = mem[i*size : (i+1)*size : (i+1)*size]
	}
	return b
}

// newSendBatch is a batch for the send queue.
func newSendBatch(n int) *batch {
	b := newBatch(n, maxPacket)
	b.out = make([]outMeta, n)
	return b
}

// outMeta is what the send queue knows of a waiting datagram.
type outMeta struct {
	c    *conn // its connection; nil for a handshake packet
	at   int64 // when it was queued, on the send queue's clock
	kind byte  // a payload's first byte: a rollnet message's type
	// payload: a session datagram Send queued, which a newer one of its
	// kind supersedes, another's pushes out of a full queue, and age
	// makes stale. Bulk ones, control and handshake packets are never
	// removed.
	payload bool
}

// remove takes the k-th datagram out of b, moving the later ones up a
// place; its buffer becomes the last, free one. It copies no bytes.
func (b *batch) remove(k int) {
	buf := b.bufs[k]
	copy(b.bufs[k:b.n], b.bufs[k+1:b.n])
	copy(b.lens[k:b.n], b.lens[k+1:b.n])
	copy(b.addrs[k:b.n], b.addrs[k+1:b.n])
	copy(b.out[k:b.n], b.out[k+1:b.n])
	b.n--
	b.bufs[b.n] = buf
	b.out[b.n] = outMeta{}
}

// makeRoom makes room in a full send batch for a datagram of c: with
// ofKind it removes the oldest waiting payload of c of the same kind
// (superseded), or else the oldest waiting payload (stale). It reports
// which, or neither when no payload waits.
func (b *batch) makeRoom(c *conn, kind byte, ofKind bool) (superseded, stale bool) {
	oldest := -1
	for k := range b.n {
		m := &b.out[k]
		if !m.payload {
			continue
		}
		if ofKind && m.c == c && m.kind == kind {
			b.remove(k)
			return true, false
		}
		if oldest < 0 {
			oldest = k
		}
	}
	if oldest < 0 {
		return false, false
	}
	b.remove(oldest)
	return false, true
}

// dropStale removes the payloads queued before notBefore and returns how
// many it removed.
func (b *batch) dropStale(notBefore int64) int {
	if b.n == 0 || b.out[0].at >= notBefore {
		return 0 // the common case: the oldest, first, is young
	}
	dropped := 0
	for k := 0; k < b.n; {
		if m := &b.out[k]; m.payload && m.at < notBefore {
			b.remove(k)
			dropped++
			continue
		}
		k++
	}
	return dropped
}
