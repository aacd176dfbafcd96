package quic

import (
	"context"
	"encoding/binary"
	"flag"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// Set by TestWebTransportInBrowser, which starts the host and this page.
var (
	wtURL   = flag.String("wt.url", "", "the host's WebTransport URL")
	wtHash  = flag.String("wt.hash", "", "the host's certificate hash")
	wtGrant = flag.String("wt.grant", "", "a connect grant for the host")
)

// TestWebTransportClient runs in headless Chromium against a Go host that
// echoes every datagram: the page's own WebTransport carries datagrams of
// every size up to transport.MaxDatagram both ways, whole.
func TestWebTransportClient(t *testing.T) {
	if *wtURL == "" {
		t.Skip("run by TestWebTransportInBrowser")
	}
	pin, err := ParseHash(*wtHash)
	require.NoError(t, err)
	g, err := connecttoken.ParseGrant(*wtGrant)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := DialWebTransport(ctx, *wtURL, Config{PinSHA256: pin, Grant: &g})
	require.NoError(t, err)
	defer c.Close()
	require.Equal(t, transport.Peer("client-9"), c.Local())
	t.Logf("browser: admitted as %s by %s", c.Local(), c.Host())

	buf := make([]byte, transport.MaxDatagram)
	for i, n := range []int{4, 16, 100, 513, 1024, transport.MaxDatagram} {
		out := make([]byte, n)
		binary.LittleEndian.PutUint32(out, uint32(i))
		for j := 4; j < n; j++ {
			out[j] = byte(i*31 + j)
		}
		got := false
		for try := 0; try < 20 && !got; try++ {
			require.NoError(t, c.Send(c.Host(), out))
			deadline := time.Now().Add(500 * time.Millisecond)
			for !got && time.Now().Before(deadline) {
				m, from, err := c.Receive(buf)
				if err != nil {
					require.ErrorIs(t, err, transport.ErrNoPacket)
					time.Sleep(2 * time.Millisecond)
					continue
				}
				require.Equal(t, c.Host(), from)
				if m == n && binary.LittleEndian.Uint32(buf) == uint32(i) {
					require.Equal(t, out, buf[:m], "echo of %d bytes", n)
					got = true
				}
			}
		}
		require.True(t, got, "no echo of the %d-byte datagram", n)
	}
	require.ErrorIs(t, c.Send(c.Host(), make([]byte, transport.MaxDatagram+1)), transport.ErrTooLarge)
	t.Logf("browser: %+v", c.Stats())
}
