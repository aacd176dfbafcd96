//go:build !js

package quic

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet/transport/transporttest"
)

func TestConformance(t *testing.T) {
	tick := func() { time.Sleep(time.Millisecond) }
	t.Run("default", func(t *testing.T) {
		// Send drops past 8 waiting datagrams: a 64-datagram burst may lose
		// some, as a lossy link would.
		transporttest.Run(t, func(t *testing.T) transporttest.Pair {
			h := listen(t, Config{})
			c := dialHost(t, h, Config{})
			return transporttest.Pair{A: h, B: c, Tick: tick, Patience: 500, Lossy: true}
		})
	})
	t.Run("deep send queue", func(t *testing.T) {
		// Loopback loses nothing: with room for a whole burst every
		// datagram must arrive, exactly once.
		transporttest.Run(t, func(t *testing.T) transporttest.Pair {
			cfg := Config{Tuning: Tuning{SendQueueLen: transporttest.BurstLen, BulkQueueLen: transporttest.BurstLen}}
			h := listen(t, cfg)
			c := dialHost(t, h, cfg)
			return transporttest.Pair{A: h, B: c, Tick: tick, Patience: 500}
		})
	})
}
