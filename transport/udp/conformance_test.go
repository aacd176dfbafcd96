//go:build !js

package udp

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet/transport/transporttest"
)

func TestConformance(t *testing.T) {
	tick := func() { time.Sleep(time.Millisecond) }
	// Loopback loses nothing and the send queue holds a burst: every
	// datagram must arrive, exactly once, in order.
	transporttest.Run(t, func(t *testing.T) transporttest.Pair {
		h := listen(t, Config{})
		c := dial(t, h, "", Config{})
		return transporttest.Pair{A: h, B: c, Tick: tick, Patience: 500}
	})
}
