//go:build !linux

package udp

import (
	"errors"
	"net"
	"net/netip"
)

// batchConn moves batches through a UDP socket one datagram a system call:
// the fallback where recvmmsg and sendmmsg are not used.
type batchConn struct {
	udp *net.UDPConn
}

func newBatchConn(c *net.UDPConn, _ int) (*batchConn, error) {
	return &batchConn{udp: c}, nil
}

// read fills b with one datagram, waiting for it.
func (c *batchConn) read(b *batch) error {
	n, a, err := c.udp.ReadFromUDPAddrPort(b.bufs[0])
	if err != nil {
		return err
	}
	b.lens[0], b.addrs[0], b.n = n, netip.AddrPortFrom(a.Addr().Unmap(), a.Port()), 1
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

func (c *batchConn) close() error { return c.udp.Close() }
