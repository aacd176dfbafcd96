package netplay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport/local"
)

// TestDelayFollows: with DelayBounds.Follow, a P2P match's delay follows
// the link from 20 ms to 150 ms one way and back (Status.InputDelay,
// Stats, News), and a spectator watches on; without it the delay stays.
func TestDelayFollows(t *testing.T) {
	for _, follow := range []bool{true, false} {
		l := newLAN(t, local.Link{Latency: 20 * time.Millisecond})
		cfg := netplay.Config{Players: 2, InputDelay: netplay.DelayBounds{Min: 1, Max: 12, Follow: follow}}
		cfg.Name = "alice"
		a := l.add("a", join, cfg, "b", "s")
		cfg.Name = "bob"
		b := l.add("b", join, cfg, "a", "s")
		cfg.Name = "sam"
		s := l.add("s", watch, cfg, "a", "b")
		l.until(300, "both running", func() bool { return a.st.Phase == netplay.Running && b.st.Phase == netplay.Running })
		start := a.st.InputDelay
		require.NoError(t, l.net.SetDefaultLink(local.Link{Latency: 150 * time.Millisecond}))
		for range 180 {
			l.tick()
		}
		if !follow {
			require.Equal(t, start, a.st.InputDelay)
			require.Zero(t, a.m.Stats().DelayChanges)
			continue
		}
		require.GreaterOrEqual(t, a.st.InputDelay, 9, "150 ms one way")
		require.Equal(t, a.st.InputDelay, b.st.InputDelay)
		require.Equal(t, a.st.InputDelay, a.m.Stats().InputDelay)
		require.NoError(t, l.net.SetDefaultLink(local.Link{Latency: 20 * time.Millisecond}))
		for range 180 {
			l.tick()
		}
		require.LessOrEqual(t, a.st.InputDelay, 3)
		require.GreaterOrEqual(t, a.m.Stats().DelayChanges, uint64(2))
		require.True(t, hasNews(a, "input delay"), "%q", a.m.News())
		require.NoError(t, a.err)
		require.NoError(t, b.err)
		require.NoError(t, s.err)
		require.Greater(t, int(s.m.Frame()), int(a.m.Frame())-90, "the spectator watches on")
		require.Equal(t, a.m.Stats().Agreed, a.m.Stats().Compared)
		t.Logf("alice: %q", a.m.News())
	}
}
