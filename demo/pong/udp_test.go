package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// tokenSecret writes a connect-token secret to a file of the test's, for
// a host's and its clients' -token-secret-file.
func tokenSecret(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(file, []byte("the game backend's secret, 32 B+\n"), 0o600))
	return file
}

// TestDedicatedHostOverUDP: a dedicated pong host serving transport/udp
// alone (-udp, -token-secret-file, -webrtc=false) and a client dialing it
// with -connect udp://, minting its connect token from the same secret:
// the client plays to its budget, and its applied states agree with the
// host's announced checksums.
func TestDedicatedHostOverUDP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two processes for about 6 s")
	}
	_, ctx := processTest(t)
	secret := tokenSecret(t)
	host := startWatched(ctx, t, "host", "-webrtc=false", "-udp", "127.0.0.1:0", "-token-secret-file", secret, "-stats-every", "0")
	m := host.waitFor(ctx, t, regexp.MustCompile(`msg="udp listening" addr=(\S+)`))
	c := startWatched(ctx, t, "-mode", "authority", "-headless", "-timeout", "20s", "-frames", "300", "-name", "udpy",
		"-connect", "udp://"+m[1], "-token-secret-file", secret)
	out, status := c.end(t)
	t.Logf("client over transport/udp:\n%s", withoutChecksums(out))
	require.Equal(t, exitOK, status)
	require.Contains(t, out, "(checksums agree)")
	n := regexp.MustCompile(`states compared     (\d+) frames`).FindStringSubmatch(out)
	require.NotNil(t, n)
	k, _ := strconv.Atoi(n[1])
	require.Greater(t, k, 25, "the host's states were checked by their checksums (every 8th of 300)")
	require.Contains(t, out, "(transport/udp, computed)", "the report's wire line")
	require.NoError(t, host.cmd.Process.Signal(syscall.SIGTERM))
	hout, status := host.end(t)
	require.Equal(t, 0, status, hout)
	require.Contains(t, hout, "joined=1")
}

// TestConnectUDPFlags: -connect udp:// wants -token-secret-file and no
// -pin, and -token-secret-file wants -connect and a secret it can read.
func TestConnectUDPFlags(t *testing.T) {
	short := filepath.Join(t.TempDir(), "short")
	require.NoError(t, os.WriteFile(short, []byte("too short"), 0o600))
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-mode", "authority", "-connect", "udp://127.0.0.1:7777"}, "needs -token-secret-file"},
		{[]string{"-mode", "authority", "-connect", "udp://127.0.0.1:7777", "-token-secret-file", tokenSecret(t), "-pin", strings.Repeat("a", 64)}, "a udp:// host has no certificate"},
		{[]string{"-mode", "authority", "-connect", "udp://127.0.0.1", "-token-secret-file", tokenSecret(t)}, "-connect wants quic://HOST:PORT or udp://HOST:PORT"},
		{[]string{"-mode", "authority", "-connect", "udp://127.0.0.1:7777", "-token-secret-file", filepath.Join(t.TempDir(), "none")}, "-token-secret-file:"},
		{[]string{"-mode", "authority", "-connect", "udp://127.0.0.1:7777", "-token-secret-file", short}, "-token-secret-file:"},
		{[]string{"-token-secret-file", short}, "-token-secret-file needs -connect"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr strings.Builder
			require.Equal(t, exitUsage, run(tc.args, &stdout, &stderr))
			require.Contains(t, stderr.String(), tc.msg)
		})
	}
}
