//go:build !linux

package udp

import (
	"errors"
	"net"
	"net/netip"
	"sync"
)

// batchConn moves batches through a UDP socket one datagram a system call:
// the fallback where recvmmsg and sendmmsg are not used.
type batchConn struct {
	udp   *net.UDPConn
	local net.Addr
}

func newBatchConn(c *net.UDPConn, _ int) (*batchConn, error) {
	return &batchConn{udp: c, local: c.LocalAddr()}, nil
}

// pollable says whether poll reads: not here, so the read loop reads
// everything.
const pollable = false

// read fills b with one datagram, waiting for it, and returns with mu
// held when its error is nil.
func (c *batchConn) read(b *batch, mu *sync.Mutex, _ func() bool) error {
	n, a, err := c.udp.ReadFromUDPAddrPort(b.bufs[0])
	if err != nil {
		return err
	}
	mu.Lock()
	b.lens[0], b.addrs[0], b.n = n, netip.AddrPortFrom(a.Addr().Unmap(), a.Port()), 1
	return nil
}

// poll reads nothing here.
func (c *batchConn) poll(b *batch) error {
	b.n = 0
	return nil
}

// write sends b's datagrams; a datagram the kernel refuses is skipped
// and counted in failed.
func (c *batchConn) write(b *batch) (failed int, err error) {
	for i := range b.n {
		if _, err := c.udp.WriteToUDPAddrPort(b.bufs[i][:b.lens[i]], b.addrs[i]); err != nil {
			if errors.Is(err, net.ErrClosed) {
				return failed, err
			}
			failed++
		}
	}
	return failed, nil
}

// writeTo sends one datagram as it is (tests inject packets with it).
func (c *batchConn) writeTo(b []byte, to netip.AddrPort) error {
	_, err := c.udp.WriteToUDPAddrPort(b, to)
	return err
}

func (c *batchConn) close() error { return c.udp.Close() }
