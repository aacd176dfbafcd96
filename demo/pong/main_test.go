package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// childEnv, when set, makes this test binary run as the demo itself (see
// TestMain), so the process tests run the real program, parent and
// opponent, without a separate build.
const childEnv = "ROLLNET_PONG_AS_DEMO"

// demo runs the demo as a separate process with args and returns its
// combined output and exit status.
func demo(t *testing.T, timeout time.Duration, args ...string) (string, int) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), childEnv+"=1", "TMPDIR="+t.TempDir()) // a desync's state files (record.go)
	out, err := cmd.CombinedOutput()
	require.NoError(t, ctx.Err(), "the demo ran over %v:\n%s", timeout, out)
	if err != nil {
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%s", out)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// TestTwoProcessesOverWebRTC runs what CI and a newcomer run: the demo
// starts a signaling server and its opponent process, the two connect over
// WebRTC on loopback, play 600 frames headless, and agree.
func TestTwoProcessesOverWebRTC(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two processes for about 15 s")
	}
	out, status := demo(t, 60*time.Second, "-frames", "600", "-headless")
	t.Logf("demo output:\n%s", out)
	require.Equal(t, exitOK, status)
	require.Equal(t, 2, strings.Count(out, "pong report ("), "both processes report")
	require.Equal(t, 2, strings.Count(out, "frames played       600"))
	require.Equal(t, 2, strings.Count(out, "(checksums agree)"))
	require.Equal(t, 2, strings.Count(out, "result              ok"))
	require.Contains(t, out, "[opponent] pong report (right)")
	// Both round trips, each labelled: the game loop's, and the network's
	// own as ICE measured it.
	require.Equal(t, 2, strings.Count(out, "round trip          game loop "))
	require.Equal(t, 2, strings.Count(out, " ms (WebRTC ICE)"))
}

// TestTwoProcessesDesyncFails: a desync (injected in the opponent) is
// detected by both processes and the exit status says so.
func TestTwoProcessesDesyncFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two processes")
	}
	out, status := demo(t, 60*time.Second, "-frames", "240", "-headless", "-inject-desync", "120")
	t.Logf("demo output:\n%s", out)
	require.Equal(t, exitDesync, status)
	require.Equal(t, 2, strings.Count(out, "result              FAILED: desync"))
}

// TestSpectateProcesses: -spectate starts two player processes and watches
// them as the left player's spectator; all three agree.
func TestSpectateProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three processes")
	}
	out, status := demo(t, 60*time.Second, "-spectate", "-frames", "240", "-headless")
	t.Logf("demo output:\n%s", out)
	require.Equal(t, exitOK, status)
	require.Contains(t, out, "pong report (spectator)")
	require.Contains(t, out, "[left] pong report (left)")
	require.Contains(t, out, "[right] pong report (right)")
	require.Equal(t, 3, strings.Count(out, "(checksums agree)"))
	require.Equal(t, 3, strings.Count(out, "result              ok"))
}

// TestNoServerFailsToConnect: an unreachable signaling server is a failure
// to connect, with a non-zero status and a message saying so.
func TestNoServerFailsToConnect(t *testing.T) {
	out, status := demo(t, 30*time.Second, "-signal", "ws://127.0.0.1:1", "-room", "x", "-timeout", "2s", "-headless")
	require.Equal(t, exitFailure, status, out)
	require.Contains(t, out, "joining ws://127.0.0.1:1/room/x")
}

func TestBadFlags(t *testing.T) {
	var out strings.Builder
	require.Equal(t, exitUsage, run([]string{"-impair", "fast"}, &out, &out))
	require.Equal(t, exitUsage, run([]string{"-room", "x"}, &out, &out))
	require.Equal(t, exitUsage, run([]string{"-fps", "0"}, &out, &out))
	require.Equal(t, exitUsage, run([]string{"stray"}, &out, &out))
}

func TestImpairFlag(t *testing.T) {
	var im impairment
	require.NoError(t, im.Set("100ms,15ms,2%"))
	require.Equal(t, impairment{Latency: 100 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.02}, im)
	require.NoError(t, im.Set("40ms"))
	require.Equal(t, impairment{Latency: 40 * time.Millisecond}, im)
	for _, bad := range []string{"", "x", "10ms,20ms", "1ms,0ms,101%", "1ms,1ms,1%,1", "-5ms"} {
		require.Error(t, im.Set(bad), bad)
	}
}

func TestRoomURL(t *testing.T) {
	u, err := roomURL("ws://example.org:8080", "friday")
	require.NoError(t, err)
	require.Equal(t, "ws://example.org:8080/room/friday", u)
	u, err = roomURL("wss://example.org/", "")
	require.NoError(t, err)
	require.Equal(t, "wss://example.org/room?next=2", u)
	_, err = roomURL("http://example.org", "x")
	require.Error(t, err)
}

func FuzzImpairment(f *testing.F) {
	for _, s := range []string{"100ms,15ms,2%", "0s", "1ms,1ms,100%", "5ms,,", ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var im impairment
		if im.Set(s) != nil {
			return
		}
		require.GreaterOrEqual(t, im.Latency, im.Jitter)
		require.GreaterOrEqual(t, im.Jitter, time.Duration(0))
		require.True(t, im.Loss >= 0 && im.Loss <= 1)
		if im == (impairment{}) {
			return // String is empty for no impairment (the flag's default)
		}
		var again impairment
		require.NoError(t, again.Set(im.String()), im.String())
		require.Equal(t, im, again)
	})
}

// TestSpectateRoomJoinsRunningMatch: two players in a room on a signaling
// server start their match; a third process started only then, with
// -signal -room -spectate, is added by the left player and watches the
// match from frame 0; all three agree.
func TestSpectateRoomJoinsRunningMatch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three processes")
	}
	srv, err := startSignalServer()
	require.NoError(t, err)
	defer srv.close()
	exe, err := os.Executable()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := []string{"-signal", srv.url, "-room", "watched", "-headless", "-frames", "360", "-fps", "120", "-timeout", "20s"}
	type proc struct {
		cmd     *exec.Cmd
		out     strings.Builder
		joined  chan struct{} // closed once it is in the room
		started chan struct{} // closed once its match started
		read    chan struct{} // closed once out holds all the output
	}
	start := func(extra ...string) *proc {
		p := &proc{cmd: exec.CommandContext(ctx, exe, append(args, extra...)...),
			joined: make(chan struct{}), started: make(chan struct{}), read: make(chan struct{})}
		p.cmd.Env = append(os.Environ(), childEnv+"=1")
		r, err := p.cmd.StdoutPipe()
		require.NoError(t, err)
		p.cmd.Stderr = p.cmd.Stdout
		require.NoError(t, p.cmd.Start())
		go func() {
			defer close(p.read)
			sc := bufio.NewScanner(r)
			joined, started := p.joined, p.started
			for sc.Scan() {
				p.out.WriteString(sc.Text() + "\n")
				switch {
				case joined != nil && strings.HasPrefix(sc.Text(), "pong: in room"):
					close(joined)
					joined = nil
				case started != nil && strings.HasPrefix(sc.Text(), "pong: match started"):
					close(started)
					started = nil
				}
			}
		}()
		return p
	}
	wait := func(c <-chan struct{}, what string) {
		select {
		case <-c:
		case <-ctx.Done():
			t.Fatal(what)
		}
	}
	left := start() // in the room first: the left player, the host
	wait(left.joined, "the first player never joined")
	right := start()
	wait(left.started, "the match never started")
	watcher := start("-spectate")
	for _, p := range []*proc{left, right, watcher} {
		<-p.read // before Wait, which closes the pipe
		_ = p.cmd.Wait()
	}
	out := left.out.String() + right.out.String() + watcher.out.String()
	t.Logf("left, right, spectator:\n%s", out)
	for _, p := range []*proc{left, right, watcher} {
		require.Equal(t, exitOK, p.cmd.ProcessState.ExitCode())
	}
	require.Contains(t, left.out.String(), "spectators          spectator ")
	require.Contains(t, watcher.out.String(), "pong report (spectator)")
	require.Contains(t, watcher.out.String(), "frames played       360")
	require.Equal(t, 3, strings.Count(out, "(checksums agree)"))
}
