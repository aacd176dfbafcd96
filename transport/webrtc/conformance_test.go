package webrtc

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/transport/transporttest"
)

// signalingURL starts a signaling server on loopback for the test and
// returns its base WebSocket URL ("ws://127.0.0.1:port").
func signalingURL(t testing.TB) string {
	t.Helper()
	srv, err := signaling.NewServer(signaling.ServerConfig{})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		_ = srv.Close()
		hs.Close()
	})
	return "ws" + strings.TrimPrefix(hs.URL, "http")
}

var rooms atomic.Int64

// dialPair joins two loopback transports to a fresh room on the server at
// base and waits until their data channel is open both ways.
func dialPair(t testing.TB, base string, cfg Config) (a, b *rtcTransport) {
	t.Helper()
	cfg.LoopbackOnly = true
	url := fmt.Sprintf("%s/room/r%d", base, rooms.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	a, err := dial(ctx, url, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	b, err = dial(ctx, url, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	_, err = a.WaitPeers(ctx, 1)
	require.NoError(t, err)
	_, err = b.WaitPeers(ctx, 1)
	require.NoError(t, err)
	return a, b
}

func TestConformance(t *testing.T) {
	base := signalingURL(t)
	tick := func() { time.Sleep(time.Millisecond) }
	t.Run("default", func(t *testing.T) {
		// Sends are skipped while 256 B are buffered: a burst loses most of
		// itself, as a lossy link would.
		transporttest.Run(t, func(t *testing.T) transporttest.Pair {
			a, b := dialPair(t, base, Config{})
			return transporttest.Pair{A: a, B: b, Tick: tick, Patience: 500, Lossy: true}
		})
	})
	t.Run("no send threshold", func(t *testing.T) {
		// Loopback loses nothing: with the threshold out of the way every
		// datagram must arrive, exactly once.
		transporttest.Run(t, func(t *testing.T) transporttest.Pair {
			a, b := dialPair(t, base, Config{Tuning: Tuning{SendThreshold: 1 << 30}})
			return transporttest.Pair{A: a, B: b, Tick: tick, Patience: 500}
		})
	})
}
