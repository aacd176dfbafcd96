//go:build linux

package udp

import (
	"net"
	"net/netip"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// batchConn moves batches through a UDP socket with recvmmsg and sendmmsg,
// waiting in Go's network poller, and allocates nothing per call: the
// headers, vectors and addresses are made once (x/net's ipv4.PacketConn
// allocates an address per datagram read).
type batchConn struct {
	udp   *net.UDPConn
	raw   syscall.RawConn
	inet6 bool // the socket is AF_INET6 (IPv4 peers as mapped addresses)

	rd, wr          mmsgs
	readFn, writeFn func(fd uintptr) bool
}

// mmsgs is one direction's system-call state.
type mmsgs struct {
	hdrs  []unix.Mmsghdr
	iovs  []unix.Iovec
	names []unix.RawSockaddrInet6
	b     *batch
	off   int // first datagram of b the call moves
	n     int // datagrams the call moved
	errno syscall.Errno
}

func newMmsgs(n int) mmsgs {
	m := mmsgs{hdrs: make([]unix.Mmsghdr, n), iovs: make([]unix.Iovec, n), names: make([]unix.RawSockaddrInet6, n)}
	for i := range m.hdrs {
		m.hdrs[i].Hdr.Iov = &m.iovs[i]
		m.hdrs[i].Hdr.SetIovlen(1)
		m.hdrs[i].Hdr.Name = (*byte)(unsafe.Pointer(&m.names[i]))
	}
	return m
}

func newBatchConn(c *net.UDPConn, n int) (*batchConn, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	bc := &batchConn{udp: c, raw: raw, rd: newMmsgs(n), wr: newMmsgs(n)}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		var sa unix.Sockaddr
		sa, serr = unix.Getsockname(int(fd))
		_, bc.inet6 = sa.(*unix.SockaddrInet6)
	}); err != nil {
		return nil, err
	}
	if serr != nil {
		return nil, serr
	}
	bc.readFn, bc.writeFn = bc.doRead, bc.doWrite
	return bc, nil
}

// read fills b with at least one datagram, waiting for one.
func (c *batchConn) read(b *batch) error {
	m := &c.rd
	k := min(len(b.bufs), len(m.hdrs))
	for i := range k {
		m.iovs[i].Base = &b.bufs[i][0]
		m.iovs[i].SetLen(len(b.bufs[i]))
		m.hdrs[i].Hdr.Namelen = unix.SizeofSockaddrInet6
		m.hdrs[i].Hdr.Flags = 0
		m.hdrs[i].Len = 0
	}
	m.b, m.off, m.n = b, k, 0
	if err := c.raw.Read(c.readFn); err != nil {
		return err
	}
	if m.errno != 0 {
		return m.errno
	}
	for i := range m.n {
		b.lens[i] = int(m.hdrs[i].Len)
		if m.hdrs[i].Hdr.Flags&unix.MSG_TRUNC != 0 {
			b.lens[i] = len(b.bufs[i]) // over any packet of ours: dropped
		}
		b.addrs[i] = sockaddrToAddrPort(&m.names[i])
	}
	b.n = m.n
	return nil
}

func (c *batchConn) doRead(fd uintptr) bool {
	m := &c.rd
	n, _, e := unix.Syscall6(unix.SYS_RECVMMSG, fd, uintptr(unsafe.Pointer(&m.hdrs[0])), uintptr(m.off), unix.MSG_DONTWAIT, 0, 0)
	if e == unix.EAGAIN || e == unix.EINTR {
		return false
	}
	m.n, m.errno = int(n), e
	if e != 0 {
		m.n = 0
	}
	return true
}

// write sends b's datagrams; a datagram the kernel refuses is skipped
// and counted in failed.
func (c *batchConn) write(b *batch) (failed int, err error) {
	m := &c.wr
	for off := 0; off < b.n; {
		k := min(b.n-off, len(m.hdrs))
		for i := range k {
			j := off + i
			m.iovs[i].Base = &b.bufs[j][0]
			m.iovs[i].SetLen(b.lens[j])
			m.hdrs[i].Hdr.Namelen = c.putSockaddr(&m.names[i], b.addrs[j])
			m.hdrs[i].Len = 0
		}
		m.b, m.off, m.n = b, k, 0
		if err := c.raw.Write(c.writeFn); err != nil {
			return failed, err
		}
		if m.errno != 0 {
			// The first datagram failed (an address the kernel will not
			// reach): skip it.
			failed++
			off++
			continue
		}
		off += m.n
	}
	return failed, nil
}

func (c *batchConn) doWrite(fd uintptr) bool {
	m := &c.wr
	n, _, e := unix.Syscall6(unix.SYS_SENDMMSG, fd, uintptr(unsafe.Pointer(&m.hdrs[0])), uintptr(m.off), 0, 0, 0)
	if e == unix.EAGAIN || e == unix.EINTR {
		return false
	}
	m.n, m.errno = int(n), e
	if e != 0 {
		m.n = 0
	}
	return true
}

func (c *batchConn) putSockaddr(sa *unix.RawSockaddrInet6, a netip.AddrPort) uint32 {
	port := a.Port()
	if !c.inet6 {
		s4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		*s4 = unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: a.Addr().Unmap().As4()}
		*(*[2]byte)(unsafe.Pointer(&s4.Port)) = [2]byte{byte(port >> 8), byte(port)}
		return unix.SizeofSockaddrInet4
	}
	*sa = unix.RawSockaddrInet6{Family: unix.AF_INET6, Addr: a.Addr().As16()}
	*(*[2]byte)(unsafe.Pointer(&sa.Port)) = [2]byte{byte(port >> 8), byte(port)}
	return unix.SizeofSockaddrInet6
}

func sockaddrToAddrPort(sa *unix.RawSockaddrInet6) netip.AddrPort {
	p := *(*[2]byte)(unsafe.Pointer(&sa.Port))
	port := uint16(p[0])<<8 | uint16(p[1])
	switch sa.Family {
	case unix.AF_INET:
		s4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		return netip.AddrPortFrom(netip.AddrFrom4(s4.Addr), port)
	case unix.AF_INET6:
		return netip.AddrPortFrom(netip.AddrFrom16(sa.Addr).Unmap(), port)
	}
	return netip.AddrPort{}
}

func (c *batchConn) close() error { return c.udp.Close() }
