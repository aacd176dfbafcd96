//go:build linux

package udp

import (
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// batchConn moves batches through a UDP socket with recvmmsg and sendmmsg,
// and allocates nothing per call: the headers, vectors and addresses are
// made once (x/net's ipv4.PacketConn allocates an address per datagram
// read).
//
// It owns the socket outside Go's network poller: newBatchConn keeps a
// duplicate of the UDPConn's descriptor and closes the UDPConn, which
// takes the socket out of the poller's epoll set. In the poller, every
// datagram that arrives wakes a thread of the runtime, whether or not a
// goroutine waits for it; here only a read loop that waits (wait, a
// blocking ppoll) is woken, and Receive's poll reads what arrived in the
// meantime without any wake-up. Every system call on the descriptor is
// made under mu, read-locked; close takes it for writing, after it wakes
// the waits with ev, so that no call is ever made on a descriptor closed
// (and perhaps reused).
type batchConn struct {
	fd, ev int // the socket, and an eventfd readable once closing
	local  net.Addr
	inet6  bool // the socket is AF_INET6 (IPv4 peers as mapped addresses)

	mu      sync.RWMutex
	closed  bool
	closing atomic.Bool

	rfds, wfds [2]unix.PollFd // wait's, for reading and for writing

	rd, wr mmsgs
}

// mmsgs is one direction's system-call state; a read's has room for a
// control message each, the kernel's receive time (SO_TIMESTAMPNS).
type mmsgs struct {
	hdrs  []unix.Mmsghdr
	iovs  []unix.Iovec
	names []unix.RawSockaddrInet6
	ctrl  []byte // ctrlSize a header (reads)
}

// ctrlSize is room for one control message holding a timespec.
var ctrlSize = unix.CmsgSpace(int(unsafe.Sizeof(unix.Timespec{})))

func newMmsgs(n int, read bool) mmsgs {
	m := mmsgs{hdrs: make([]unix.Mmsghdr, n), iovs: make([]unix.Iovec, n), names: make([]unix.RawSockaddrInet6, n)}
	if read {
		m.ctrl = make([]byte, n*ctrlSize)
	}
	for i := range m.hdrs {
		m.hdrs[i].Hdr.Iov = &m.iovs[i]
		m.hdrs[i].Hdr.SetIovlen(1)
		m.hdrs[i].Hdr.Name = (*byte)(unsafe.Pointer(&m.names[i]))
		if read {
			m.hdrs[i].Hdr.Control = &m.ctrl[i*ctrlSize]
		}
	}
	return m
}

// stamp is the kernel's receive time in the i-th header's control
// message (Unix ns), 0 when it holds none.
func (m *mmsgs) stamp(i int) int64 {
	h := &m.hdrs[i].Hdr
	if int(h.Controllen) < unix.CmsgLen(int(unsafe.Sizeof(unix.Timespec{}))) {
		return 0
	}
	b := m.ctrl[i*ctrlSize : (i+1)*ctrlSize]
	cm := (*unix.Cmsghdr)(unsafe.Pointer(&b[0]))
	if cm.Level != unix.SOL_SOCKET || cm.Type != unix.SO_TIMESTAMPNS {
		return 0
	}
	ts := (*unix.Timespec)(unsafe.Pointer(&b[unix.CmsgLen(0)]))
	return ts.Nano()
}

// newBatchConn takes c's socket over and closes c.
func newBatchConn(c *net.UDPConn, n int) (*batchConn, error) {
	defer c.Close()
	raw, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	bc := &batchConn{fd: -1, local: c.LocalAddr(), rd: newMmsgs(n, true), wr: newMmsgs(n, false)}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		var sa unix.Sockaddr
		if sa, serr = unix.Getsockname(int(fd)); serr != nil {
			return
		}
		_, bc.inet6 = sa.(*unix.SockaddrInet6)
		if bc.fd, serr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0); serr != nil {
			return
		}
		// The kernel's receive time of each datagram, so that a round
		// trip leaves out how long a pong waited to be read. Without it
		// (an error) the time it is handled stands in.
		_ = unix.SetsockoptInt(bc.fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err != nil {
		return nil, err
	}
	if serr != nil {
		return nil, serr
	}
	if bc.ev, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		_ = unix.Close(bc.fd)
		return nil, err
	}
	return bc, nil
}

// pollable says whether poll reads: Receive reads the socket itself
// while it is called, and the read loop waits.
const pollable = true

// wait waits until a datagram may be read (or, with out, written), or
// the socket closes (net.ErrClosed).
func (c *batchConn) wait(out bool) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return net.ErrClosed
	}
	fds, ev := &c.rfds, int16(unix.POLLIN)
	if out {
		fds, ev = &c.wfds, unix.POLLOUT
	}
	*fds = [2]unix.PollFd{{Fd: int32(c.fd), Events: ev}, {Fd: int32(c.ev), Events: unix.POLLIN}}
	for {
		_, err := unix.Ppoll(fds[:], nil, nil)
		if err == unix.EINTR {
			continue
		}
		if fds[1].Revents != 0 {
			return net.ErrClosed
		}
		return err
	}
}

// read fills b with at least one datagram, waiting for one, unless quit
// says to stop waiting when an attempt found none (b.n is then 0). Each
// attempt reads under mu, and read returns with mu held when its error
// is nil: the caller handles b, then unlocks. mu is also poll's, so that
// the two readers share the system-call state and the connections' read
// state.
func (c *batchConn) read(b *batch, mu *sync.Mutex, quit func() bool) error {
	for {
		mu.Lock()
		err := c.poll(b)
		if err != nil || b.n > 0 || quit() {
			if err != nil {
				mu.Unlock()
			}
			return err
		}
		mu.Unlock()
		if err := c.wait(false); err != nil {
			return err
		}
	}
}

// poll fills b with the datagrams waiting, without waiting: b.n is 0 when
// none waits. The caller holds read's mu.
func (c *batchConn) poll(b *batch) error {
	m := &c.rd
	b.n = 0
	k := min(len(b.bufs), len(m.hdrs))
	for i := range k {
		m.iovs[i].Base = &b.bufs[i][0]
		m.iovs[i].SetLen(len(b.bufs[i]))
		m.hdrs[i].Hdr.Namelen = unix.SizeofSockaddrInet6
		m.hdrs[i].Hdr.SetControllen(ctrlSize)
		m.hdrs[i].Hdr.Flags = 0
		m.hdrs[i].Len = 0
	}
	n, err := c.mmsg(unix.SYS_RECVMMSG, m, k)
	if err != nil {
		return err
	}
	for i := range n {
		b.lens[i] = int(m.hdrs[i].Len)
		if m.hdrs[i].Hdr.Flags&unix.MSG_TRUNC != 0 {
			b.lens[i] = len(b.bufs[i]) // over any packet of ours: dropped
		}
		b.addrs[i] = sockaddrToAddrPort(&m.names[i])
		b.stamps[i] = m.stamp(i)
	}
	b.n = n
	return nil
}

// mmsg makes one non-blocking recvmmsg or sendmmsg call of k headers of
// m; it returns 0 datagrams, not an error, when none could move.
func (c *batchConn) mmsg(call uintptr, m *mmsgs, k int) (int, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return 0, net.ErrClosed
	}
	for {
		n, _, e := unix.Syscall6(call, uintptr(c.fd), uintptr(unsafe.Pointer(&m.hdrs[0])), uintptr(k), unix.MSG_DONTWAIT, 0, 0)
		switch e {
		case 0:
			return int(n), nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return 0, nil
		}
		return 0, e
	}
}

// write sends b's datagrams, waiting while the socket's buffer is full; a
// datagram the kernel refuses is skipped and counted in failed.
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
		n, err := c.mmsg(unix.SYS_SENDMMSG, m, k)
		switch {
		case err == net.ErrClosed:
			return failed, err
		case err != nil:
			// The first datagram failed (an address the kernel will not
			// reach): skip it.
			failed++
			off++
		case n == 0:
			if err := c.wait(true); err != nil {
				return failed, err
			}
		default:
			off += n
		}
	}
	return failed, nil
}

// writeTo sends one datagram as it is (tests inject packets with it).
func (c *batchConn) writeTo(b []byte, to netip.AddrPort) error {
	var sa unix.RawSockaddrInet6
	l := c.putSockaddr(&sa, to)
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return net.ErrClosed
	}
	_, _, e := unix.Syscall6(unix.SYS_SENDTO, uintptr(c.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0, uintptr(unsafe.Pointer(&sa)), uintptr(l))
	if e != 0 {
		return e
	}
	return nil
}

// close wakes the waits, then closes the socket once no call is made on
// it. It may be called again.
func (c *batchConn) close() error {
	if c.closing.Swap(true) {
		return nil
	}
	one := [8]byte{1}
	_, _ = unix.Write(c.ev, one[:])
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	_ = unix.Close(c.ev)
	return unix.Close(c.fd)
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
