//go:build !js

package quic

import (
	"context"
	"net"
	"runtime"
	"testing"

	"github.com/rollnet/rollnet/internal/sendqueue"
	"github.com/rollnet/rollnet/transport"
)

// pollUntil polls r until a datagram arrives, yielding between polls
// (the loops that fill the queue need the core).
func pollUntil(r *qtransport, buf []byte) {
	for {
		if _, _, err := r.Receive(buf); err == nil {
			return
		}
		runtime.Gosched()
	}
}

// BenchmarkRoundTrip is a 32-byte datagram from client to host and back
// over loopback, polled as a game would (without sleeping); its baseline
// is the same round trip between two plain UDP sockets.
func BenchmarkRoundTrip(b *testing.B) {
	h := listen(b, Config{})
	c := dialHost(b, h, Config{})
	pkt := make([]byte, 32)
	buf := make([]byte, transport.MaxDatagram)
	b.ReportAllocs()
	b.SetBytes(int64(len(pkt)))
	for b.Loop() {
		if err := c.Send(c.Host(), pkt); err != nil {
			b.Fatal(err)
		}
		pollUntil(h, buf)
		if err := h.Send(c.Local(), pkt); err != nil {
			b.Fatal(err)
		}
		pollUntil(c, buf)
	}
}

func BenchmarkRoundTripBaselineUDP(b *testing.B) {
	a, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	z, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	defer z.Close()
	za := z.LocalAddr().(*net.UDPAddr)
	aa := a.LocalAddr().(*net.UDPAddr)
	pkt := make([]byte, 32)
	buf := make([]byte, transport.MaxDatagram)
	b.ReportAllocs()
	b.SetBytes(int64(len(pkt)))
	for b.Loop() {
		if _, err := a.WriteToUDP(pkt, za); err != nil {
			b.Fatal(err)
		}
		if _, _, err := z.ReadFromUDP(buf); err != nil {
			b.Fatal(err)
		}
		if _, err := z.WriteToUDP(pkt, aa); err != nil {
			b.Fatal(err)
		}
		if _, _, err := a.ReadFromUDP(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSendReceive is this package's own per-datagram work: Send into
// the peer's ring, the send loop's pop, the read loop's push and Receive,
// with no connection under it (0 B/op); its baseline is the two copies a
// datagram needs.
func BenchmarkSendReceive(b *testing.B) {
	cfg, _ := Config{}.withDefaults()
	tr := newTransport(cfg)
	defer tr.Close()
	ctx, stop := context.WithCancel(context.Background())
	p := &peer{id: "b", conn: nopConn{}, out: sendqueue.New(cfg.Tuning.BulkQueueLen), ctx: ctx, stop: stop}
	tr.peers[p.id] = p
	p.lane = tr.q.Lane(p.id)
	pkt := make([]byte, 64)
	buf := make([]byte, transport.MaxDatagram)
	b.ReportAllocs()
	b.SetBytes(int64(len(pkt)))
	for b.Loop() {
		_ = tr.Send("b", pkt)
		n, _, _ := p.out.Pop(buf, 0)
		tr.rc.Received(tr.q, p.lane, buf[:n])
		_, _, _ = tr.Receive(buf)
	}
}

func BenchmarkSendReceiveBaselineCopy(b *testing.B) {
	pkt := make([]byte, 64)
	mid := make([]byte, transport.MaxDatagram)
	buf := make([]byte, transport.MaxDatagram)
	b.ReportAllocs()
	b.SetBytes(int64(len(pkt)))
	for b.Loop() {
		n := copy(mid, pkt)
		copy(buf, mid[:n])
	}
}
