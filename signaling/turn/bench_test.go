package turn_test

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/turn"
)

// pingPong sends msg from a to b's address bAddr and back to a's aAddr, n
// times, reading each arrival into buf.
func pingPong(b *testing.B, a, c net.PacketConn, aAddr, cAddr net.Addr, msg, buf []byte) {
	b.Helper()
	if _, err := a.WriteTo(msg, cAddr); err != nil {
		b.Fatal(err)
	}
	if _, _, err := c.ReadFrom(buf); err != nil {
		b.Fatal(err)
	}
	if _, err := c.WriteTo(msg, aAddr); err != nil {
		b.Fatal(err)
	}
	if _, _, err := a.ReadFrom(buf); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRoundTrip: a 64-byte game packet there and back between two
// sockets on loopback, directly (the physical baseline) and through the
// relay (two allocations, channel data once bound, as ICE uses it). The
// relay's price is the ratio of the two.
func BenchmarkRoundTrip(b *testing.B) {
	msg, buf := make([]byte, 64), make([]byte, 1500)
	b.Run("direct-udp", func(b *testing.B) {
		var socks [2]net.PacketConn
		for i := range socks {
			pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
			require.NoError(b, err)
			b.Cleanup(func() { _ = pc.Close() })
			socks[i] = pc
		}
		b.SetBytes(int64(2 * len(msg)))
		b.ReportAllocs()
		for b.Loop() {
			pingPong(b, socks[0], socks[1], socks[0].LocalAddr(), socks[1].LocalAddr(), msg, buf)
		}
	})
	b.Run("turn-relay", func(b *testing.B) {
		r := startRelay(b, turn.Config{AllowLoopback: true})
		exp := time.Now().Add(time.Hour)
		x, err := allocate(b, dialTURN(b, r, "udp", creds("x", exp)))
		require.NoError(b, err)
		y, err := allocate(b, dialTURN(b, r, "udp", creds("y", exp)))
		require.NoError(b, err)
		for _, c := range []net.PacketConn{x, y} {
			require.NoError(b, c.SetReadDeadline(time.Now().Add(time.Minute)))
		}
		// Permissions both ways, then channels bound.
		_, err = y.WriteTo(msg, x.LocalAddr())
		require.NoError(b, err)
		for range 50 {
			pingPong(b, x, y, x.LocalAddr(), y.LocalAddr(), msg, buf)
		}
		b.SetBytes(int64(2 * len(msg)))
		b.ReportAllocs()
		for b.Loop() {
			pingPong(b, x, y, x.LocalAddr(), y.LocalAddr(), msg, buf)
		}
	})
}
