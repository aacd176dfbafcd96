//go:build !js

package quic

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/internal/recvqueue"
	"github.com/rollnet/rollnet/internal/sendqueue"
	"github.com/rollnet/rollnet/transport"
)

// nopConn is a datagramConn that is never read or written: the peer's
// loops are not started, and the test plays their part.
type nopConn struct{}

func (nopConn) SendDatagram([]byte) error { return nil }
func (nopConn) ReceiveDatagram(ctx context.Context) ([]byte, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}
func (nopConn) RemoteAddr() net.Addr { return &net.UDPAddr{} }
func (nopConn) closeWith(string)     {}

// The per-datagram paths of this package allocate nothing: Send and
// SendBulk into the peer's send ring, the send loop's pop, the read loop's
// queue push, and Receive. (quic-go's own SendDatagram and its receive
// path allocate; TestQuicGoAllocsPerDatagram measures them.)
func TestAllocsPerDatagram(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	cfg, err := Config{}.withDefaults()
	require.NoError(t, err)
	tr := newTransport(cfg)
	defer tr.Close()
	ctx, stop := context.WithCancel(context.Background())
	p := &peer{id: "b", conn: nopConn{}, out: sendqueue.New(cfg.Tuning.BulkQueueLen), ctx: ctx, stop: stop}
	tr.peers[p.id] = p
	p.lane = tr.q.Lane(p.id)

	pkt := make([]byte, 64)
	buf := make([]byte, transport.MaxDatagram)
	// On this goroutine only: the peer's loops are not started, so all
	// of this runs here, while quic-go's timers from the package's other
	// tests (a closed connection's ReplaceWithClosed) allocate on theirs.
	allocs.RequireZeroHere(t, 1000, func() {
		if err := tr.Send("b", pkt); err != nil {
			t.Fatal(err)
		}
		if taken, err := tr.SendBulk("b", pkt); !taken || err != nil {
			t.Fatal(taken, err)
		}
		for range 2 {
			if n, _, ok := p.out.Pop(buf, 0); !ok || n != len(pkt) {
				t.Fatal("send ring lost a datagram")
			}
		}
		if tr.q.Push(p.lane, pkt) != recvqueue.Pushed {
			t.Fatal("queue full")
		}
		if _, _, err := tr.Receive(buf); err != nil {
			t.Fatal(err)
		}
		if _, _, err := tr.Receive(buf); !errors.Is(err, transport.ErrNoPacket) {
			t.Fatal(err)
		}
	}, "a datagram sent, sent bulk, popped, pushed and received")
	var peers []transport.Peer
	var events []transport.PeerEvent
	allocs.RequireZeroHere(t, 100, func() {
		peers = tr.Peers(peers[:0])
		events = tr.Events(events[:0])
		_ = tr.Stats()
	}, "Peers, Events and Stats")
}

// quic-go allocates per datagram (SendDatagram copies the payload into a
// new frame; the receive path copies each DATAGRAM frame into a new slice,
// and packet handling allocates besides): this measures the whole
// client-to-host path over loopback, both processes' worth, and keeps it
// from growing unnoticed. The figure is logged for the package doc.
func TestQuicGoAllocsPerDatagram(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	h := listen(t, Config{})
	c := dialHost(t, h, Config{})
	pkt := make([]byte, 64)
	buf := make([]byte, transport.MaxDatagram)
	oneWay := func() {
		if err := c.Send(c.Host(), pkt); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(wait)
		for {
			if _, _, err := h.Receive(buf); err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no datagram within %v", wait)
			}
			time.Sleep(50 * time.Microsecond)
		}
	}
	for range 100 {
		oneWay() // past the handshake's and MTU discovery's allocations
	}
	// The mean, not allocs.RequireZero: this bounds quic-go's
	// allocations per datagram (tens, on both processes' goroutines),
	// which are not zero and not ours to make so.
	allocs := testing.AllocsPerRun(500, oneWay)
	t.Logf("quic-go: %.1f allocations per 64-byte datagram, sender and receiver together", allocs)
	require.Less(t, allocs, 40.0, "quic-go's allocations per datagram grew")
}
