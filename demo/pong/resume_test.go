package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// watched is a demo process whose output a test waits on, line by line.
type watched struct {
	ctx     context.Context // kills it when done
	cmd     *exec.Cmd
	mu      sync.Mutex
	out     strings.Builder
	changed chan struct{} // closed, and replaced, at each line and at the end
	done    bool
}

func startWatched(ctx context.Context, t *testing.T, args ...string) *watched {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	w := &watched{ctx: ctx, cmd: demoCommand(ctx, exe, args...), changed: make(chan struct{})}
	w.cmd.Env = append(os.Environ(), childEnv+"=1")
	r, err := w.cmd.StdoutPipe()
	require.NoError(t, err)
	w.cmd.Stderr = w.cmd.Stdout
	require.NoError(t, w.cmd.Start())
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			w.mu.Lock()
			w.out.WriteString(sc.Text() + "\n")
			close(w.changed)
			w.changed = make(chan struct{})
			w.mu.Unlock()
		}
		w.mu.Lock()
		w.done = true
		close(w.changed)
		w.mu.Unlock()
	}()
	return w
}

// waitFor waits for a line matching re and returns its submatches; the
// test fails if the process ends or ctx does first.
func (w *watched) waitFor(ctx context.Context, t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	for {
		w.mu.Lock()
		out, done, changed := w.out.String(), w.done, w.changed
		w.mu.Unlock()
		for _, line := range strings.Split(out, "\n") {
			if m := re.FindStringSubmatch(line); m != nil {
				return m
			}
		}
		if done {
			t.Fatalf("the process ended without a line matching %s:\n%s", re, withoutChecksums(out))
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("waited for a line matching %s until the test's bound (%v); the process printed:\n%s",
				re, context.Cause(ctx), withoutChecksums(out))
		}
	}
}

// end waits for the process to exit (at most until its context ends, which
// kills it and fails the test) and returns its output and status.
func (w *watched) end(t *testing.T) (string, int) {
	t.Helper()
	// Read to the end first: Wait closes the pipe once the process exits,
	// and a reader still behind then loses the output's last lines (a
	// client's report, seen missing once under load).
	for {
		w.mu.Lock()
		done, changed := w.done, w.changed
		w.mu.Unlock()
		if done {
			break
		}
		<-changed
	}
	_ = w.cmd.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.ctx.Err(); err != nil {
		t.Fatalf("waited for the demo process %q to exit: still running when the test's bound ended (%v), killed; its output:\n%s",
			w.cmd.Args[1:], context.Cause(w.ctx), withoutChecksums(w.out.String()))
	}
	return w.out.String(), w.cmd.ProcessState.ExitCode()
}

// tokenLine is a rejoin token's line: the token shown redacted, its
// fingerprint telling it apart.
var tokenLine = regexp.MustCompile(`pong: rejoin token (rn1\.REDACTED#[0-9a-f]{8}) `)

// TestResumeAcrossProcesses: a client process killed (SIGKILL: it says
// nothing) and started again with the token it kept (-rejoin FILE) gets its
// paddle back from the listen server and plays its own -frames from
// there: the host's report says the client resumed (and quit, its budget
// spent before the host's), and the new process verified the host's
// states.
func TestResumeAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three processes for about 15 s")
	}
	srv, ctx := processTest(t)
	args := []string{"-mode", "authority", "-signal", srv.url, "-room", "resume", "-headless", "-timeout", "20s"}
	host := startWatched(ctx, t, append(args, "-frames", "900", "-name", "hostie")...)
	host.waitFor(ctx, t, regexp.MustCompile(`^pong: in room`))
	file := filepath.Join(t.TempDir(), "token")
	first := startWatched(ctx, t, append(args, "-frames", "-1", "-name", "cli", "-rejoin", file)...)
	token := first.waitFor(ctx, t, tokenLine)[1]
	require.NoError(t, first.cmd.Process.Signal(syscall.SIGKILL))
	firstOut, _ := first.end(t)

	kept, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, token, tokenShown(bytes.TrimSpace(kept)), "-rejoin keeps the token printed redacted")
	require.NotContains(t, firstOut, strings.TrimSpace(string(kept)), "the token is never printed")
	// -frames counts its own frames: it leaves before its host's end.
	again := startWatched(ctx, t, append(args, "-frames", "300", "-name", "cli", "-rejoin", file)...)
	again.waitFor(ctx, t, regexp.MustCompile(`rejoined the host .*: its token taken, the same slot`))
	out, status := again.end(t)
	t.Logf("restarted client:\n%s", withoutChecksums(out))
	require.Equal(t, exitOK, status)
	require.Contains(t, out, "result              ok")
	require.Contains(t, out, "(checksums agree)")
	require.Contains(t, out, "pong: rejoin token "+token, "the same token, the same slot")

	out, status = host.end(t)
	t.Logf("host:\n%s", withoutChecksums(out))
	require.Equal(t, exitOpponentLeft, status, "its client quit before its frame budget's end")
	require.Regexp(t, `result              cli quit at frame \d+`, out)
	require.Contains(t, out, "joined 1, rejoined 1")
	require.Regexp(t, `cli rejoined at frame \d+ \(slot 2, kept\)`, out)
}

// TestResumeTooLate: from a dedicated host (pong host) with a one-second
// grace window, a client process killed and restarted with its token after
// the window gets RESUME_REJECT and a fresh paddle, and plays on until the
// host is ended by SIGTERM, which tells it: it reports the host quit.
func TestResumeTooLate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three processes for about 15 s")
	}
	srv, ctx := processTest(t)
	host := startWatched(ctx, t, "host", "-signal", srv.url, "-room", "late", "-grace", "1s", "-timeout", "2s", "-stats-every", "0")
	host.waitFor(ctx, t, regexp.MustCompile(`msg=hosting game=pong`))
	args := []string{"-mode", "authority", "-signal", srv.url, "-room", "late", "-headless", "-timeout", "20s", "-frames", "-1"}
	file := filepath.Join(t.TempDir(), "token")
	first := startWatched(ctx, t, append(args, "-rejoin", file)...)
	token := first.waitFor(ctx, t, tokenLine)[1]
	require.NoError(t, first.cmd.Process.Signal(syscall.SIGKILL))
	_, _ = first.end(t)
	host.waitFor(ctx, t, regexp.MustCompile(`msg="client expired`))

	again := startWatched(ctx, t, append(args, "-rejoin", file)...)
	again.waitFor(ctx, t, regexp.MustCompile(`afresh: its rejoin token refused \(too late\)`))
	fresh := again.waitFor(ctx, t, tokenLine)[1]
	require.NotEqual(t, token, fresh, "a fresh slot comes with a fresh token")
	host.waitFor(ctx, t, regexp.MustCompile(`msg="resume rejected`))
	// Playing: it applied a host state (a checksum line) before the host
	// quits.
	again.waitFor(ctx, t, regexp.MustCompile(`^pong: checksum frame \d+`))
	// SIGTERM on the host tells its clients: the client says the host
	// quit (not that it vanished) and exits 4.
	require.NoError(t, host.cmd.Process.Signal(syscall.SIGTERM))
	out, status := host.end(t)
	t.Logf("host:\n%s", out)
	require.Equal(t, 0, status)
	require.Contains(t, out, `msg="shutting down: telling the clients"`)
	out, status = again.end(t)
	t.Logf("restarted client:\n%s", withoutChecksums(out))
	require.Equal(t, exitOpponentLeft, status)
	require.Regexp(t, `result              the host .+ quit at frame`, out)
}

// TestDedicatedHost: two clients of a dedicated pong host (pong host), one
// on each side, play to the frame budget; the host announces its
// checksums, and each client's applied states agree with them.
func TestDedicatedHost(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three processes for about 10 s")
	}
	srv, ctx := processTest(t)
	host := startWatched(ctx, t, "host", "-signal", srv.url, "-room", "dedicated", "-stats-every", "0")
	host.waitFor(ctx, t, regexp.MustCompile(`msg=hosting game=pong`))
	args := []string{"-mode", "authority", "-signal", srv.url, "-room", "dedicated", "-headless", "-timeout", "20s", "-frames", "600"}
	// A client of other settings reads the host's game and what differs, not hashes.
	other := startWatched(ctx, t, append(args, "-fps", "30", "-name", "other")...)
	out, status := other.end(t)
	require.Equal(t, exitFailure, status, out)
	require.Contains(t, out, `pong: the host in room dedicated runs another game than pong, or pong at another -fps (netplay: the peer's settings differ: "pong host (pong)" plays 3 players at 60 fps, this peer 3 at 30 fps)`)
	require.NotRegexp(t, `0x[0-9a-f]+`, out, "no settings hash")
	left := startWatched(ctx, t, append(args, "-name", "lefty")...)
	left.waitFor(ctx, t, regexp.MustCompile(`^pong: match started: lefty \(left, client\)`))
	right := startWatched(ctx, t, append(args, "-name", "righty")...)
	for _, c := range []*watched{left, right} {
		out, status := c.end(t)
		t.Logf("client:\n%s", withoutChecksums(out))
		require.Equal(t, exitOK, status)
		require.Contains(t, out, "(checksums agree)")
		m := regexp.MustCompile(`states compared     (\d+) frames`).FindStringSubmatch(out)
		require.NotNil(t, m)
		n, _ := strconv.Atoi(m[1])
		require.Greater(t, n, 50, "the host's states were checked by their checksums (every 8th of 600)")
	}
	require.NoError(t, host.cmd.Process.Signal(syscall.SIGTERM))
	out, status = host.end(t)
	t.Logf("host:\n%s", out)
	require.Equal(t, 0, status)
	require.Equal(t, 2, strings.Count(out, `msg="client joined"`))
}

// TestRejoinPastFrames: -frames counts an authoritative client's own
// frames, not its host's frame number: a client killed and started again
// with -rejoin FILE -frames 300 when its host is already past frame 240
// plays 300 frames from its return (the host's frame number once ended it
// after 60, or at once past 300): the host frames it played span them.
func TestRejoinPastFrames(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three processes for about 15 s")
	}
	srv, ctx := processTest(t)
	args := []string{"-mode", "authority", "-signal", srv.url, "-room", "past", "-headless", "-timeout", "20s"}
	host := startWatched(ctx, t, append(args, "-frames", "-1", "-name", "hostie")...)
	host.waitFor(ctx, t, regexp.MustCompile(`^pong: in room`))
	file := filepath.Join(t.TempDir(), "token")
	first := startWatched(ctx, t, append(args, "-frames", "-1", "-name", "cli", "-rejoin", file)...)
	first.waitFor(ctx, t, tokenLine)
	host.waitFor(ctx, t, regexp.MustCompile(`^pong: checksum frame 240 `))
	require.NoError(t, first.cmd.Process.Signal(syscall.SIGKILL))
	_, _ = first.end(t)
	again := startWatched(ctx, t, append(args, "-frames", "300", "-name", "cli", "-rejoin", file)...)
	again.waitFor(ctx, t, regexp.MustCompile(`rejoined the host .*: its token taken, the same slot`))
	out, status := again.end(t)
	t.Logf("restarted client:\n%s", withoutChecksums(out))
	require.Equal(t, exitOK, status)
	require.Contains(t, out, "frames played       300")
	m := regexp.MustCompile(`host states +\d+ applied \(frames (\d+) to (\d+) played\)`).FindStringSubmatch(out)
	require.NotNil(t, m, "the host frames it played")
	lo, _ := strconv.Atoi(m[1])
	hi, _ := strconv.Atoi(m[2])
	require.Greater(t, lo, 240, "it came back past frame 240")
	require.GreaterOrEqual(t, hi-lo, 250, "it played 300 frames of its own (the playout may lag its end), not to the host's frame 300")
	require.NoError(t, host.cmd.Process.Signal(syscall.SIGTERM))
	_, _ = host.end(t)
}
