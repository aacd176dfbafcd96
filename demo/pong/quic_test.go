package main

import (
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDedicatedHostOverQUICAndWebRTC: one dedicated pong host serves a
// client dialing it over QUIC (-connect, with the certificate hash the
// host logged) and one joining its room over WebRTC, in one match; each
// client's applied states agree with the host's announced checksums.
func TestDedicatedHostOverQUICAndWebRTC(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three processes for about 10 s")
	}
	srv, ctx := processTest(t)
	host := startWatched(ctx, t, "host", "-signal", srv.url, "-room", "mixed", "-stats-every", "0", "-quic", "127.0.0.1:0")
	m := host.waitFor(ctx, t, regexp.MustCompile(`msg="quic listening" addr=(\S+) id=\S+ sha256=([0-9a-f]{64})`))
	host.waitFor(ctx, t, regexp.MustCompile(`msg=hosting game=pong`))
	common := []string{"-mode", "authority", "-headless", "-timeout", "20s", "-frames", "600", "-room", "mixed"}
	overQUIC := startWatched(ctx, t, append(common, "-name", "quicky", "-connect", "quic://"+m[1], "-pin", m[2])...)
	overQUIC.waitFor(ctx, t, regexp.MustCompile(`^pong: match started: quicky`))
	overRTC := startWatched(ctx, t, append(common, "-name", "rtcy", "-signal", srv.url)...)
	for name, c := range map[string]*watched{"QUIC": overQUIC, "WebRTC": overRTC} {
		out, status := c.end(t)
		t.Logf("client over %s:\n%s", name, withoutChecksums(out))
		require.Equal(t, exitOK, status, name)
		require.Contains(t, out, "(checksums agree)", name)
		n := regexp.MustCompile(`states compared     (\d+) frames`).FindStringSubmatch(out)
		require.NotNil(t, n, name)
		k, _ := strconv.Atoi(n[1])
		require.Greater(t, k, 50, "%s: the host's states were checked by their checksums (every 8th of 600)", name)
	}
	require.NoError(t, host.cmd.Process.Signal(syscall.SIGTERM))
	out, status := host.end(t)
	require.Equal(t, 0, status, out)
	require.Contains(t, out, "joined=2")
}

// TestConnectFlags: -connect's mistakes are usage errors.
func TestConnectFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-connect", "quic://127.0.0.1:4433"}, "-connect is the authority mode's"},
		{[]string{"-mode", "authority", "-connect", "ws://127.0.0.1:4433"}, "-connect wants quic://HOST:PORT"},
		{[]string{"-mode", "authority", "-connect", "quic://127.0.0.1"}, "-connect wants quic://HOST:PORT"},
		{[]string{"-mode", "authority", "-connect", "quic://127.0.0.1:4433", "-signal", "ws://x:1"}, "not with -signal"},
		{[]string{"-mode", "authority", "-connect", "quic://127.0.0.1:4433", "-pin", "abc"}, "-pin:"},
		{[]string{"-pin", strings.Repeat("a", 64)}, "-pin needs -connect"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr strings.Builder
			require.Equal(t, exitUsage, run(tc.args, &stdout, &stderr))
			require.Contains(t, stderr.String(), tc.msg)
		})
	}
}

// TestConnectWrongPin: a host whose certificate is not the pinned one is
// a failure to connect, saying so without a hash to copy; without -pin,
// it says to add one.
func TestConnectWrongPin(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two processes")
	}
	_, ctx := processTest(t)
	host := startWatched(ctx, t, "host", "-webrtc=false", "-quic", "127.0.0.1:0", "-stats-every", "0")
	m := host.waitFor(ctx, t, regexp.MustCompile(`msg="quic listening" addr=(\S+)`))
	c := startWatched(ctx, t, "-mode", "authority", "-headless", "-timeout", "5s", "-connect", "quic://"+m[1], "-pin", strings.Repeat("ab", 32))
	out, status := c.end(t)
	require.Equal(t, exitFailure, status, out)
	require.Contains(t, out, "its certificate is not the one -pin names")
	require.NotRegexp(t, `[0-9a-f]{64}`, strings.ReplaceAll(out, strings.Repeat("ab", 32), ""), "no hash to copy but the one given")
	c = startWatched(ctx, t, "-mode", "authority", "-headless", "-timeout", "5s", "-connect", "quic://"+m[1])
	out, status = c.end(t)
	require.Equal(t, exitFailure, status, out)
	require.Contains(t, out, "its certificate is self-signed and no -pin was given: add -pin")
	require.NoError(t, host.cmd.Process.Signal(syscall.SIGTERM))
	_, status = host.end(t)
	require.Equal(t, 0, status)
}
