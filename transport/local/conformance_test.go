package local_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport/local"
	"github.com/rollnet/rollnet/transport/transporttest"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// newPair opens endpoints "a" and "b" on a fresh network over link, on a
// manual clock that each Tick advances by a millisecond.
func newPair(t *testing.T, link local.Link, lossy bool) transporttest.Pair {
	clock := local.NewClock(epoch)
	net, err := local.NewNetwork(local.Config{Seed: 42, Now: clock.Now, Link: link})
	require.NoError(t, err)
	a, err := net.Endpoint("a")
	require.NoError(t, err)
	b, err := net.Endpoint("b")
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	return transporttest.Pair{
		A: a, B: b,
		Tick:  func() { clock.Advance(time.Millisecond) },
		Lossy: lossy,
	}
}

func TestConformance(t *testing.T) {
	t.Run("Perfect", func(t *testing.T) {
		transporttest.Run(t, func(t *testing.T) transporttest.Pair {
			return newPair(t, local.Link{}, false)
		})
	})
	t.Run("Delayed", func(t *testing.T) {
		transporttest.Run(t, func(t *testing.T) transporttest.Pair {
			return newPair(t, local.Link{Latency: 40 * time.Millisecond, Jitter: 6 * time.Millisecond, Ordered: true}, false)
		})
	})
	t.Run("Lossy", func(t *testing.T) {
		transporttest.Run(t, func(t *testing.T) transporttest.Pair {
			return newPair(t, local.Link{
				Latency: 20 * time.Millisecond, Jitter: 10 * time.Millisecond,
				Loss: 0.2, Duplicate: 0.2, Reorder: 0.2,
				Burst: local.Burst{Enter: 0.05, Leave: 0.5},
			}, true)
		})
	})
	t.Run("RealTime", func(t *testing.T) {
		// The wall clock and a zero-delay link: every datagram is due at
		// once, so the suite needs no sleeping.
		transporttest.Run(t, func(t *testing.T) transporttest.Pair {
			net, err := local.NewNetwork(local.Config{})
			require.NoError(t, err)
			a, err := net.Endpoint("a")
			require.NoError(t, err)
			b, err := net.Endpoint("b")
			require.NoError(t, err)
			t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
			return transporttest.Pair{A: a, B: b, Tick: func() {}}
		})
	})
}
