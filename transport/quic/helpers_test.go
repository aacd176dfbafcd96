//go:build !js

package quic

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
)

// wait bounds every real-time wait of these tests.
const wait = 10 * time.Second

// listen starts a host on loopback for the test.
func listen(t testing.TB, cfg Config) *qtransport {
	t.Helper()
	h, err := Listen("127.0.0.1:0", cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	return h.(*qtransport)
}

// dialHost connects a client to h, pinning its certificate, and waits
// until h has admitted it.
func dialHost(t testing.TB, h *qtransport, cfg Config) *qtransport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cfg.PinSHA256 = h.CertHash()
	c, err := Dial(ctx, h.Addr().String(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.Equal(t, h.Local(), c.Host(), "the client's name for the host")
	return c.(*qtransport)
}

// receiveWithin polls r until a datagram arrives, for at most wait.
func receiveWithin(t testing.TB, r *qtransport, what string) ([]byte, transport.Peer) {
	t.Helper()
	buf := make([]byte, transport.MaxDatagram)
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		n, from, err := r.Receive(buf)
		if err == nil {
			return buf[:n], from
		}
		require.ErrorIs(t, err, transport.ErrNoPacket)
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%s: no datagram within %v", what, wait)
	return nil, ""
}
