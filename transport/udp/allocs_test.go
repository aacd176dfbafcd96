//go:build !js

package udp

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/transport"
)

// A datagram each way, through the host's and the client's sockets, read
// and write loops, sealing and opening, allocates nothing: testing's
// count is the process's, so the transports' goroutines are in it.
func TestZeroAllocsPerDatagram(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector allocates")
	}
	h := listen(t, Config{})
	c := dial(t, h, "", Config{})
	state, input := make([]byte, 200), make([]byte, 32)
	buf := make([]byte, transport.MaxDatagram)
	take := func(r *udpTransport) {
		for {
			if _, _, err := r.Receive(buf); err == nil {
				return
			}
			runtime.Gosched()
		}
	}
	exchange := func() {
		if err := h.Send(c.Local(), state); err != nil {
			panic(err)
		}
		if err := c.Send(h.Local(), input); err != nil {
			panic(err)
		}
		take(c)
		take(h)
	}
	for range 20 {
		exchange()
	}
	require.Zero(t, testing.AllocsPerRun(100, exchange), "allocations per datagram each way")
}
