package signaling

import (
	"context"
	"github.com/rollnet/rollnet/internal/testkit"
	"log/slog"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/client"
)

// syncBuffer is where a test collects logs its goroutines write.
type syncBuffer = testkit.SyncBuffer

// Issue 40 item 5: a server behind a reverse proxy on its own machine,
// the proxy not named in TrustedProxies, sees every client as loopback,
// which the per-address caps exempt. Nothing said so. Now a proxy header
// from a peer not trusted is counted (Stats.ForwardedIgnored, and the
// forwarded_ignored_total metric) and logged at Warn the first time; from
// a trusted proxy it is believed and not counted.
func TestForwardedFromUntrustedPeerCounted(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		var log syncBuffer
		cfg := ServerConfig{Logger: slog.New(slog.NewTextHandler(&log, nil))}
		if trusted {
			cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		}
		h := start(t, cfg)
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		c, err := client.Dial(ctx, h.url("/room/r"), client.Config{HTTPHeader: map[string][]string{"X-Forwarded-For": {"203.0.113.9"}}})
		cancel()
		require.NoError(t, err)
		_ = c.Close()
		st := h.srv.Stats()
		if trusted {
			require.Zero(t, st.ForwardedIgnored)
			require.NotContains(t, log.String(), "not in TrustedProxies")
			continue
		}
		require.Equal(t, uint64(1), st.ForwardedIgnored)
		require.Contains(t, log.String(), "level=WARN")
		require.Contains(t, log.String(), "not in TrustedProxies")
		require.Contains(t, log.String(), "loopback_exempt_from_caps=true")
	}
}
