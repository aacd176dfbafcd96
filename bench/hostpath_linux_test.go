//go:build linux

package main

import (
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"testing"

	"golang.org/x/net/ipv4"

	"github.com/rollnet/rollnet/internal/transportfigures"
)

// The host path's floor (issue 39): the datagrams an authoritative host
// moves each tick (every client's input in, every client's state out)
// through plain UDP sockets on loopback and nothing else, once with one
// recvmsg/sendmsg a datagram and once batched with recvmmsg/sendmmsg.
// The sizes are internal/transportfigures' defaults, the ones its QUIC
// and WebRTC host figures move.
const (
	hostPathInput = 32  // bytes of a client's input datagram
	hostPathState = 200 // bytes of the host's state datagram to a client
	hostPathBatch = 64  // datagrams a recvmmsg/sendmmsg call at most
	hostPathTicks = 64  // ticks measured an iteration, after hostPathWarm
	hostPathWarm  = 8
)

// BenchmarkHostPath reports the host's CPU time per client per tick
// (ns/client-tick). On the floors (transport=udp-batched, the floor every
// other one is divided by, and transport=udp-unbatched) it is the
// thread's own CPU time around the host's receives and sends: the
// clients' sends and receives run on the same thread between them and
// are not counted, and loopback delivers a datagram in the sender's
// system call, so each side is charged for what it sends. The ticks run
// back to back, not paced. Over each of hostPathTransports it is the
// host process's CPU time, the clients in another process (see
// benchHostOver), with the floor of the same process beside it.
func BenchmarkHostPath(b *testing.B) {
	for _, n := range []int{16, 64, 256} {
		for _, how := range []struct {
			name    string
			batched bool
		}{{"udp-batched", true}, {"udp-unbatched", false}} {
			b.Run(fmt.Sprintf("transport=%s/clients=%d", how.name, n), func(b *testing.B) {
				p := newHostPath(b, n, how.batched)
				b.ReportAllocs()
				var cpu int64
				for b.Loop() {
					cpu += p.run(b, hostPathTicks)
				}
				per := float64(cpu) / float64(b.N*hostPathTicks*n)
				b.ReportMetric(per, "ns/client-tick")
				if how.batched {
					floors[n] = per
				}
				reportWire(b, transportfigures.UDP, b.N*hostPathTicks*n, b.N*hostPathTicks*n, n)
			})
		}
		for _, tr := range hostPathTransports {
			b.Run(fmt.Sprintf("transport=%s/clients=%d", tr.name, n), func(b *testing.B) { benchHostOver(b, tr, n) })
		}
	}
}

// hostPath is one host socket and its clients' sockets, on loopback.
type hostPath struct {
	host    *net.UDPConn
	batch   *ipv4.PacketConn // host, for recvmmsg/sendmmsg; nil when unbatched
	clients []*net.UDPConn
	addrs   []netip.AddrPort // each client's address, as the host knows it
	udp     []*net.UDPAddr   // the same, for the batched sends
	in, out []byte
	buf     []byte
	rd, wr  []ipv4.Message
}

func newHostPath(b *testing.B, n int, batched bool) *hostPath {
	b.Helper()
	host, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = host.Close() })
	// A tick's inputs wait in the host's buffer until it reads them: room
	// for 256 of them (the kernel caps it at net.core.rmem_max).
	if err := host.SetReadBuffer(4 << 20); err != nil {
		b.Fatal(err)
	}
	p := &hostPath{host: host, in: make([]byte, hostPathInput), out: make([]byte, hostPathState),
		buf: make([]byte, 1500)}
	for range n {
		c, err := net.DialUDP("udp4", nil, host.LocalAddr().(*net.UDPAddr))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = c.Close() })
		a := c.LocalAddr().(*net.UDPAddr)
		p.clients, p.addrs, p.udp = append(p.clients, c), append(p.addrs, a.AddrPort()), append(p.udp, a)
	}
	if batched {
		p.batch = ipv4.NewPacketConn(host)
		p.rd, p.wr = make([]ipv4.Message, hostPathBatch), make([]ipv4.Message, hostPathBatch)
		for i := range p.rd {
			p.rd[i].Buffers = [][]byte{make([]byte, 1500)}
			p.wr[i].Buffers = [][]byte{p.out}
		}
	}
	p.run(b, hostPathWarm)
	return p
}

// run plays ticks ticks and returns the host's share of the thread's CPU
// time, in nanoseconds.
func (p *hostPath) run(b *testing.B, ticks int) int64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var host int64
	for range ticks {
		for _, c := range p.clients {
			if _, err := c.Write(p.in); err != nil {
				b.Fatal(err)
			}
		}
		start := threadCPU()
		var err error
		if p.batch != nil {
			err = p.batchedTick()
		} else {
			err = p.plainTick()
		}
		host += threadCPU() - start
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range p.clients {
			if n, err := c.Read(p.buf); err != nil || n != hostPathState {
				b.Fatalf("client read %d bytes: %v", n, err)
			}
		}
	}
	return host
}

// plainTick reads every client's input and sends each its state, one
// system call a datagram.
func (p *hostPath) plainTick() error {
	for range p.clients {
		if n, _, err := p.host.ReadFromUDPAddrPort(p.buf); err != nil || n != hostPathInput {
			return fmt.Errorf("host read %d bytes: %w", n, err)
		}
	}
	for _, a := range p.addrs {
		if _, err := p.host.WriteToUDPAddrPort(p.out, a); err != nil {
			return err
		}
	}
	return nil
}

// batchedTick does what plainTick does, up to hostPathBatch datagrams a
// system call.
func (p *hostPath) batchedTick() error {
	for got := 0; got < len(p.clients); {
		n, err := p.batch.ReadBatch(p.rd[:min(len(p.rd), len(p.clients)-got)], 0)
		if err != nil {
			return err
		}
		got += n
	}
	for sent := 0; sent < len(p.udp); {
		m := p.wr[:min(len(p.wr), len(p.udp)-sent)]
		for i := range m {
			m[i].Addr = p.udp[sent+i]
		}
		n, err := p.batch.WriteBatch(m, 0)
		if err != nil {
			return err
		}
		sent += n
	}
	return nil
}
