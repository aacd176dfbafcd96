//go:build !js

package udp

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// A host on every address (":0", a dual-stack socket where the system has
// IPv6) serves an IPv4 client, whose address it sees mapped, and an IPv6
// one where ::1 exists.
func TestDualStack(t *testing.T) {
	h := listenOn(t, ":0", Config{})
	port := h.LocalAddr().(*net.UDPAddr).Port
	for _, ip := range []string{"127.0.0.1", "::1"} {
		t.Run(ip, func(t *testing.T) {
			if ip == "::1" {
				if c, err := net.ListenUDP("udp6", &net.UDPAddr{IP: net.IPv6loopback}); err != nil {
					t.Skip("no IPv6 loopback here")
				} else {
					_ = c.Close()
				}
			}
			c, err := dialTo(t, h, net.JoinHostPort(ip, strconv.Itoa(port)))
			require.NoError(t, err)
			require.NoError(t, c.Send(c.Host(), []byte("in")))
			require.Equal(t, []byte("in"), receiveFrom(t, h, c.Local()))
			require.NoError(t, h.Send(c.Local(), []byte("out")))
			require.Equal(t, []byte("out"), receiveFrom(t, c, h.Local()))
		})
	}
}
