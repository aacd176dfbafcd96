//go:build !js

package quic

import (
	"context"
	"crypto/tls"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	quicgo "github.com/quic-go/quic-go"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
)

// rawDial completes a QUIC handshake with h from a socket on ip (a
// loopback address), offering the ALPN entries alpn, and does nothing
// else: no hello.
func rawDial(ctx context.Context, h *qtransport, ip string, alpn ...string) (*quicgo.Conn, error) {
	udp, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.ParseIP(ip)})
	if err != nil {
		return nil, err
	}
	tlsConf := &tls.Config{InsecureSkipVerify: true, NextProtos: alpn} //nolint:gosec // an attacker's client
	conn, err := quicgo.Dial(ctx, udp, h.Addr(), tlsConf, &quicgo.Config{EnableDatagrams: true, HandshakeIdleTimeout: time.Second})
	if err != nil {
		_ = udp.Close()
		return nil, err
	}
	context.AfterFunc(conn.Context(), func() { _ = udp.Close() })
	return conn, nil
}

// Garbage on the host's port, short and long, shaped like QUIC or not, is
// dropped and counted; a client connects and is heard afterwards.
func TestGarbageOnThePort(t *testing.T) {
	h := listen(t, Config{})
	raw, err := net.DialUDP("udp4", nil, h.Addr().(*net.UDPAddr))
	require.NoError(t, err)
	defer raw.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 2000
	b := make([]byte, 1500)
	for i := range n {
		m := 1 + rng.IntN(len(b))
		for j := range m {
			b[j] = byte(rng.Uint32())
		}
		switch i % 4 {
		case 1:
			b[0] |= 0xc0 // a long header: Initial, Handshake, 0-RTT, Retry
		case 2:
			b[0] = 0x40 | b[0]&0x3f // a short header for an unknown connection
		}
		_, err := raw.Write(b[:m])
		require.NoError(t, err)
	}
	c := dialHost(t, h, Config{})
	require.NoError(t, c.Send(c.Host(), []byte("after the garbage")))
	got, from := receiveWithin(t, h, "a datagram after the garbage")
	require.Equal(t, "after the garbage", string(got))
	require.Equal(t, c.Local(), from)
	st := h.Stats()
	t.Logf("%d garbage packets: %d dropped by quic-go (%d for DoS prevention); %d queue drops", n, st.PacketsDropped, st.PacketsDroppedDoS, st.ReceivesDropped)
	require.Greater(t, st.PacketsDropped, uint64(n/2), "garbage not counted")
	require.Len(t, h.Peers(nil), 1, "garbage made a peer")
}

// A handshake flood from one address holds at most MaxConnsPerAddr
// connections; the rest are refused before any TLS work, or evicted (the
// address's pending share is 2), and counted.
// Connections that never send a hello are closed after HelloTimeout,
// their datagrams never reach Receive, and a client from another address
// is admitted meanwhile.
func TestHandshakeFloodFromOneAddress(t *testing.T) {
	const perAddr, flood = 4, 24
	// The refused clients retransmit their Initials until their 1 s
	// handshake timeout (rawDial); the hello timeout outlasts it, so no
	// slot frees up meanwhile.
	h := listen(t, Config{Tuning: Tuning{MaxConnsPerAddr: perAddr, HelloTimeout: 1500 * time.Millisecond}})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var (
		mu    sync.Mutex
		conns []*quicgo.Conn
		fails int
		wg    sync.WaitGroup
	)
	for range flood {
		wg.Go(func() {
			conn, err := rawDial(ctx, h, "127.0.0.2", alpnProtocol)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				fails++
				return
			}
			conns = append(conns, conn)
		})
	}
	wg.Wait()
	open := func() int {
		n := 0
		for _, conn := range conns {
			if conn.Context().Err() == nil {
				n++
			}
		}
		return n
	}
	for range 100 { // the host's closes of the evicted take a round trip
		if open() <= perAddr {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%d handshakes from one address: %d completed, %d still open, %d refused (%d counted), %d evicted",
		flood, len(conns), open(), fails, h.Stats().ConnsRefusedAddr, h.Stats().ConnsEvicted)
	require.LessOrEqual(t, open(), perAddr, "connections held by one address")
	require.GreaterOrEqual(t, h.Stats().ConnsRefusedAddr+h.Stats().ConnsEvicted, uint64(flood-perAddr))
	for _, conn := range conns {
		_ = conn.SendDatagram([]byte("unauthenticated"))
	}

	c := dialHost(t, h, Config{}) // from 127.0.0.1
	require.NoError(t, c.Send(c.Host(), []byte("hello")))
	got, from := receiveWithin(t, h, "the real client")
	require.Equal(t, "hello", string(got))
	require.Equal(t, c.Local(), from)

	for _, conn := range conns {
		select {
		case <-conn.Context().Done():
		case <-ctx.Done():
			t.Fatalf("a connection without a hello was still open after %v", wait)
		}
	}
	require.Equal(t, uint64(len(conns)), h.Stats().HellosBad)
	n, _, err := h.Receive(make([]byte, transport.MaxDatagram))
	require.ErrorIs(t, err, transport.ErrNoPacket, "a %d-byte datagram from a connection never admitted", n)
	// Their slots are free again.
	again, err := rawDial(ctx, h, "127.0.0.2", alpnProtocol)
	require.NoError(t, err, "the address's slots after its connections closed")
	_ = again.CloseWithError(0, "")
}

// A handshake without the rollnet ALPN fails; a client pinning another
// certificate refuses the host.
func TestHandshakeRefusals(t *testing.T) {
	h := listen(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, err := rawDial(ctx, h, "127.0.0.1", "rollnet/0")
	require.Error(t, err, "a handshake offering another protocol")

	_, err = Dial(ctx, h.Addr().String(), Config{PinSHA256: [32]byte{1}})
	require.ErrorIs(t, err, ErrPinMismatch)
	require.NotContains(t, err.Error(), FormatHash(h.CertHash()), "no hash to copy from whoever answered")
	require.NotErrorIs(t, err, ErrUntrusted)
	_, err = Dial(ctx, h.Addr().String(), Config{}) // no pin: the self-signed certificate does not verify
	require.ErrorIs(t, err, ErrUntrusted)
	require.NotErrorIs(t, err, ErrPinMismatch, "nothing was pinned")
	require.Empty(t, h.Peers(nil))
}

// A datagram over transport.MaxDatagram from an admitted peer (quic-go
// accepts DATAGRAM frames up to 16383 bytes) is dropped and counted; the
// next whole one arrives.
func TestOversizeDatagramDropped(t *testing.T) {
	h := listen(t, Config{})
	c := dialHost(t, h, Config{})
	c.mu.RLock()
	p := c.peers[c.Host()]
	c.mu.RUnlock()
	require.NoError(t, p.conn.SendDatagram(make([]byte, transport.MaxDatagram+1)), "quic-go refused the big datagram itself")
	require.NoError(t, c.Send(c.Host(), []byte("whole")))
	got, _ := receiveWithin(t, h, "the datagram after the oversized one")
	require.Equal(t, "whole", string(got))
	require.Eventually(t, func() bool { return h.Stats().ReceivesOversize == 1 }, wait, time.Millisecond,
		"the oversized datagram was not counted")
}
