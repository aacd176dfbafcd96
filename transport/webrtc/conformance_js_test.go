package webrtc

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet/transport/transporttest"
)

// TestConformanceInBrowser runs the transport contract's checks against
// the browser build: two Transports in one page, negotiating through an
// in-memory hub over the browser's own RTCPeerConnections. It runs in
// headless Chromium (internal/browsertest); natively, TestConformance
// covers the same through a signaling server.
func TestConformanceInBrowser(t *testing.T) {
	tick := func() { time.Sleep(time.Millisecond) }
	t.Run("default", func(t *testing.T) {
		transporttest.Run(t, func(t *testing.T) transporttest.Pair {
			a, b, _ := loopPair(t, Config{})
			return transporttest.Pair{A: a, B: b, Tick: tick, Patience: 500, Lossy: true}
		})
	})
	t.Run("no send threshold", func(t *testing.T) {
		transporttest.Run(t, func(t *testing.T) transporttest.Pair {
			a, b, _ := loopPair(t, Config{Tuning: Tuning{SendThreshold: 1 << 30}})
			return transporttest.Pair{A: a, B: b, Tick: tick, Patience: 500}
		})
	})
}
