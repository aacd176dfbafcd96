package udp

import "net/netip"

// batch is a run of datagrams for one system call: buffers of maxPacket
// bytes (and a little more, to tell an oversized datagram), lengths and
// addresses, allocated once.
type batch struct {
	bufs  [][]byte
	lens  []int
	addrs []netip.AddrPort
	n     int // datagrams in it
}

// readBufSize is a receive buffer: a datagram that fills it is over any
// packet of ours.
const readBufSize = maxPacket + 1

func newBatch(n, size int) *batch {
	b := &batch{bufs: make([][]byte, n), lens: make([]int, n), addrs: make([]netip.AddrPort, n)}
	mem := make([]byte, n*size)
	for i := range b.bufs {
		b.bufs[i] = mem[i*size : (i+1)*size : (i+1)*size]
	}
	return b
}
