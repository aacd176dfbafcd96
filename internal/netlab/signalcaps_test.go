//go:build linux

package netlab_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/netlab"
	"github.com/rollnet/rollnet/signaling/client"
)

// joins dials room at server (a ws:// URL) from h n times, and returns
// how many joined and the first refusal's error. The clients stay until
// the test ends.
func joins(t *testing.T, h *netlab.Host, server, room string, n int) (int, error) {
	t.Helper()
	tr := &http.Transport{DialContext: h.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	joined := 0
	var refused error
	for range n {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, err := client.Dial(ctx, server+"/room/"+room, client.Config{HTTPClient: &http.Client{Transport: tr}})
		cancel()
		if err != nil {
			if refused == nil {
				refused = err
			}
			continue
		}
		t.Cleanup(func() { _ = c.Close() })
		joined++
	}
	return joined, refused
}

// sameHostProxy is a reverse proxy in h, on h's address at port, that
// forwards to a server on h's loopback at backend (adding
// X-Forwarded-For, as every proxy does): a deployment behind nginx or
// Caddy on the server's own machine.
func sameHostProxy(t *testing.T, h *netlab.Host, port, backend string) string {
	t.Helper()
	ln, err := h.Listen("tcp", h.Addr().String()+":"+port)
	require.NoError(t, err)
	target, err := url.Parse("http://" + backend)
	require.NoError(t, err)
	rp := httputil.NewSingleHostReverseProxy(target)
	tr := &http.Transport{DialContext: h.DialContext}
	rp.Transport = tr
	srv := &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
		tr.CloseIdleConnections()
	})
	return "ws://" + ln.Addr().String()
}

// Issue 40 items 5 and 11, from real addresses (namespaces, not loopback
// stand-ins). Directly, one address holds at most MaxMembersPerAddr (4)
// places of a named room of 8, the next refused with HTTP 429, and a
// second address takes the other 4: two addresses fill a room (the limit
// the signaling docs state). Behind a reverse proxy on the server's own
// machine not named with -trusted-proxy, every client is loopback, which
// the caps exempt: one remote address takes all 8 places; the server
// warned at start that it listens on loopback without -trusted-proxy, and
// warns of the proxy headers it ignores. Named (-trusted-proxy
// 127.0.0.1), the proxy's X-Forwarded-For is believed and the cap holds
// through it.
func TestSignalingCapsFromAddresses(t *testing.T) {
	l := lab(t)
	sig := startSignal(t, l)
	a, b := l.Public("a"), l.Public("b")

	n, err := joins(t, a, sig.url, "direct", 5)
	t.Logf("direct, from a: %d of 5 joined; refused: %v", n, err)
	require.Equal(t, 4, n)
	require.True(t, errors.Is(err, client.ErrTooManyConnections), "the fifth from one address: %v", err)
	n, err = joins(t, b, sig.url, "direct", 4)
	require.NoError(t, err)
	require.Equal(t, 4, n, "a second address takes the rest")

	for _, c := range []struct {
		name          string
		port, backend string
		args          []string
		want          int
	}{
		{"untrusted", "8081", "127.0.0.1:8082", nil, 8},
		{"trusted", "8083", "127.0.0.1:8084", []string{"-trusted-proxy", "127.0.0.1"}, 4},
	} {
		behind := start(t, sig.host, "rollnet-signal behind "+c.name, "rollnet-signal", nil,
			append([]string{"-addr", c.backend, "-max-conns-per-addr", "64", "-join-burst", "64"}, c.args...)...)
		behind.waitFor(t, regexp.MustCompile(`rollnet-signal listening`), 20*time.Second)
		proxy := sameHostProxy(t, sig.host, c.port, c.backend)
		n, err := joins(t, a, proxy, "proxied", 8)
		t.Logf("through a same-host proxy, %s: from a %d of 8 joined; refused: %v", c.name, n, err)
		require.Equal(t, c.want, n, c.name)
		out := behind.output()
		if c.want == 8 {
			require.Contains(t, out, "listens on loopback without -trusted-proxy")
			require.Contains(t, out, "not in TrustedProxies")
		} else {
			require.NotContains(t, out, "without -trusted-proxy")
			require.NotContains(t, out, "not in TrustedProxies")
		}
	}
}
