package main

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// checksumLines reads the "pong: checksum frame F X" lines of the host
// (unprefixed) and of the client ("[opponent] ") from the demo's output.
func checksumLines(t *testing.T, out string) (host, client map[int]string) {
	t.Helper()
	re := regexp.MustCompile(`^(\[opponent\] )?pong: checksum frame (\d+) ([0-9a-f]{8})$`)
	host, client = map[int]string{}, map[int]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		m := re.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		f, err := strconv.Atoi(m[2])
		require.NoError(t, err)
		if m[1] == "" {
			host[f] = m[3]
		} else {
			client[f] = m[3]
		}
	}
	return host, client
}

// TestAuthorityProcessesAgree is the authority mode across two processes
// over WebRTC for 3600 frames (at 120 fps, 30 s): every state the client
// applied equals the host's, by the checksums both sides print every 60
// frames and by the exchange of every frame's (both reports).
func TestAuthorityProcessesAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two processes for about 35 s")
	}
	out, status := demo(t, 120*time.Second, "-mode", "authority", "-frames", "3600", "-fps", "120", "-headless")
	t.Logf("demo output (checksum lines left out):\n%s", withoutChecksums(out))
	require.Equal(t, exitOK, status)
	host, client := checksumLines(t, out)
	same := 0
	for f, c := range client {
		h, ok := host[f]
		require.True(t, ok, "frame %d: the client printed a state the host did not", f)
		require.Equal(t, h, c, "frame %d: the client applied a state that is not the host's", f)
		same++
	}
	// The client prints the frames its playout applied, and a loaded
	// machine's playout skips some (jumps: seen 42 of 60 under CI's load);
	// every applied state is compared in the reports' exchange below.
	require.GreaterOrEqual(t, same, 20, "the client printed too few of the 60 checksums")
	require.Equal(t, 1, strings.Count(out, "(checksums agree)"), "the client's check of the host's states")
	require.Equal(t, 2, strings.Count(out, "frames played       3600"))
	require.Equal(t, 2, strings.Count(out, "result              ok"))
}

// TestAuthorityDesyncFails: a client whose copy of the host's states is
// not the host's (injected from frame 120) is caught by the protocol's
// checksums and fails with status 1, which becomes its parent's.
func TestAuthorityDesyncFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two processes")
	}
	out, status := demo(t, 60*time.Second, "-mode", "authority", "-frames", "240", "-fps", "120", "-headless", "-inject-desync", "120")
	t.Logf("demo output:\n%s", withoutChecksums(out))
	require.Equal(t, exitDesync, status)
	require.Equal(t, 1, strings.Count(out, "result              FAILED: desync"))
	// The first frame both compared is the injection's, or the next the
	// client played when its paced playout skipped that one.
	for _, m := range regexp.MustCompile(`first at frame (\d+)\)`).FindAllStringSubmatch(out, -1) {
		f, _ := strconv.Atoi(m[1])
		require.True(t, f >= 120 && f < 150, "first desync at frame %d, injected at 120", f)
	}
}

// TestAuthorityImpaired: over 45 ± 20 ms with 5% loss each way the
// client plays its budget, its own paddle held to its speed while
// corrections come, and the host's states it took verify.
func TestAuthorityImpaired(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two processes for about 15 s")
	}
	out, status := demo(t, 60*time.Second, "-mode", "authority", "-frames", "600", "-headless", "-impair", "45ms,20ms,5%")
	t.Logf("demo output:\n%s", withoutChecksums(out))
	require.Equal(t, exitOK, status)
	require.Regexp(t, `own paddle held to its top speed on \d+ drawn frames`, out)
	require.Equal(t, 1, strings.Count(out, "(checksums agree)"))
}

// TestAuthoritySpectate: -spectate in the authority mode starts both
// players (the left one hosts) and watches as the host's third client,
// without a paddle; all three agree on every state they applied.
func TestAuthoritySpectate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three processes")
	}
	out, status := demo(t, 60*time.Second, "-mode", "authority", "-spectate", "-frames", "240", "-fps", "120", "-headless")
	t.Logf("demo output:\n%s", withoutChecksums(out))
	require.Equal(t, exitOK, status)
	require.Contains(t, out, "pong report (spectator, client)")
	require.Contains(t, out, "[left] pong report (left, host)")
	require.Contains(t, out, "[right] pong report (right, client)")
	require.Regexp(t, `joined at frame \d+ \(slot 3\)`, out)
	require.Equal(t, 2, strings.Count(out, "(checksums agree)"))
	require.Equal(t, 3, strings.Count(out, "result              ok"))
}

// TestAuthorityClientNotTaken: a client whose settings differ from the
// host's (another -seed: another settings hash) is told so at once, by the
// host's netplay hello or the authority wire's refusal of its Hello
// (protocol 3), whichever comes first: it exits 3 naming both settings,
// not after -timeout, and the host, whom no client joined, ends its frame
// budget with status 3 too. The host plays its budget whether a client
// came or not, so the client must be told within it: 1200 frames at 120
// fps give it 10 s (it was told in 0.2 to 1.0 s at load 20, with two test
// processes at once; 600 frames left 5 s).
func TestAuthorityClientNotTaken(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two processes")
	}
	srv, ctx := processTest(t)
	args := []string{"-mode", "authority", "-signal", srv.url, "-room", "other", "-headless", "-fps", "120", "-frames", "1200"}
	host := startWatched(ctx, t, append(args, "-seed", "1", "-timeout", "20s")...)
	host.waitFor(ctx, t, regexp.MustCompile(`^pong: in room`))
	start := time.Now()
	client := startWatched(ctx, t, append(args, "-seed", "2", "-timeout", "20s")...)
	out, status := client.end(t)
	t.Logf("client, told in %v:\n%s", time.Since(start).Round(time.Millisecond), out)
	require.Equal(t, exitFailure, status)
	require.Regexp(t, `netplay: the peer's settings differ: .*\(Config.Settings 0x1 there, 0x2 here\)|authority: the host refused the client's settings: game settings 0x2 \(host 0x1\)`, out)
	require.Less(t, time.Since(start), 15*time.Second, "told at once, not after -timeout (20 s)")
	out, status = host.end(t)
	t.Logf("host:\n%s", withoutChecksums(out))
	require.Equal(t, exitFailure, status)
	require.Contains(t, out, "FAILED: no client joined")
}

func withoutChecksums(out string) string {
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if !strings.Contains(sc.Text(), "pong: checksum frame") {
			_, _ = io.WriteString(&b, sc.Text()+"\n")
		}
	}
	return b.String()
}
