package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/signalurl"
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
	timeout = within(t, timeout)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := demoCommand(ctx, exe, args...)
	cmd.Env = append(os.Environ(), childEnv+"=1", "TMPDIR="+t.TempDir()) // a desync's state files (record.go)
	out, err := cmd.CombinedOutput()
	require.NoError(t, ctx.Err(), "waited %v for the demo %q to exit: killed:\n%s", timeout, args, out)
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
	require.Regexp(t, `\[opponent\] pong report \((left|right)\)`, out, "seated by their ids: either side")
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
	require.Regexp(t, `\[player [12]\] pong report \(left\)`, out)
	require.Regexp(t, `\[player [12]\] pong report \(right\)`, out)
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

// TestBadFlags: every bad command line exits 2 (a bad -signal URL once
// exited 3, as a failure to connect) with one line saying what is wrong
// and where help is, not the whole usage.
func TestBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-impair", "fast"}, `invalid value "fast" for flag -impair`},
		{[]string{"-room", "x"}, "-room needs -signal"},
		{[]string{"-fps", "0"}, "-fps 0: want 1 to 1000"},
		{[]string{"-delay", "40"}, "-delay 40: want 0 to 31"},
		{[]string{"stray"}, `unexpected argument "stray"`},
		{[]string{"-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"-signal", "http://example.org"}, "-signal wants ws://HOST:PORT"},
		{[]string{"-signal", "ws://"}, "-signal wants ws://HOST:PORT"},
		{[]string{"-signal", "ws://example.org/room/a", "-room", "b"}, `names room "a"`},
		{[]string{"-signal", "ws://example.org/room?next=2", "-room", "b"}, "pairs the next joiners"},
		{[]string{"-signal", "ws://example.org/room?next=2", "-spectate"}, "named -room"},
		{[]string{"-rejoin", "f"}, "-rejoin needs a named -room"},
		{[]string{"-absence", "pause"}, `invalid value "pause" for flag -absence`},
		{[]string{"-absence", "freeze"}, "-absence freeze waits for the opponent to rejoin"},
		{[]string{"-offline", "-record", "x.rec", "-frames", "60"}, "-record records a P2P player's match"},
		{[]string{"-mode", "authority", "-record", "x.rec"}, "-record records a P2P player's match"},
		{[]string{"-record", "/nonexistent/x.rec"}, "-record /nonexistent/x.rec: open /nonexistent"},
		{[]string{"-signal", "ws://example.org", "-rejoin", "f"}, "-rejoin needs a named -room"},
		{[]string{"-signal", "ws://example.org", "-room", "a", "-rejoin", "f", "-spectate"}, "-rejoin is a player's"},
		{[]string{"-signal", "ws://example.org", "-room", "a", "-rejoin", "f", "-replay", "x"}, "-rejoin is a player's"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr strings.Builder
			require.Equal(t, exitUsage, run(tc.args, &stdout, &stderr))
			require.Empty(t, stdout.String())
			require.Contains(t, stderr.String(), tc.msg)
			require.Contains(t, stderr.String(), "pong -h")
			require.NotContains(t, stderr.String(), "let a bot play", "not the whole usage")
			require.LessOrEqual(t, strings.Count(stderr.String(), "\n"), 2, "%s", stderr.String())
		})
	}
}

// TestHelp: -h exits 0 and prints, on stdout, a summary, the keys, the
// flags a player uses (not the internal ones the demo passes to the
// processes it starts) and the exit statuses.
func TestHelp(t *testing.T) {
	var stdout, stderr strings.Builder
	require.Equal(t, exitOK, run([]string{"-h"}, &stdout, &stderr))
	require.Empty(t, stderr.String())
	help := stdout.String()
	for _, want := range []string{"rollback netcode", "Keys:", "Ctrl-C quits", "-signal URL", "-spectate", "-impair", "-rejoin FILE", "Exit status", "4  the opponent", "5  -rejoin"} {
		require.Contains(t, help, want)
	}
	for _, internal := range []string{"-child", "-side", "-spectator "} {
		require.NotContains(t, help, internal)
	}
}

// TestRoomInSignalURL: a -signal URL that names a room is that room (so
// -spectate accepts it); naming the same room twice is no conflict.
func TestRoomInSignalURL(t *testing.T) {
	for _, args := range [][]string{
		{"-signal", "ws://example.org:8080/room/friday"},
		{"-signal", "ws://example.org:8080/room/friday", "-room", "friday"},
		{"-signal", "ws://example.org:8080/room/friday", "-spectate"},
	} {
		o, err := parseOptions(args)
		require.NoError(t, err, args)
		require.Equal(t, "friday", o.room, args)
		u, err := roomURL(o.signal, o.room)
		require.NoError(t, err)
		require.Equal(t, "ws://example.org:8080/room/friday", u)
	}
}

func TestImpairFlag(t *testing.T) {
	var im impairment
	require.NoError(t, im.Set("100ms,15ms,2%"))
	require.Equal(t, impairment{Latency: 100 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.02}, im)
	require.NoError(t, im.Set("40ms"))
	require.Equal(t, impairment{Latency: 40 * time.Millisecond}, im)
	require.NoError(t, im.Set("800ms,200ms"), "the most -impair allows")
	require.Equal(t, "800ms±200ms each way", im.label())
	// Over a second each way (3 s once passed, and the handshake blamed
	// an absent peer).
	for _, bad := range []string{"", "x", "10ms,20ms", "1ms,0ms,101%", "1ms,1ms,1%,1", "-5ms", "3s", "1001ms", "900ms,200ms"} {
		require.Error(t, im.Set(bad), bad)
	}
}

// roomURL is the join URL for -signal and -room (signalurl.Room): a
// named room, or, with no name, the next two joiners paired by the server;
// a room token in -signal's query (?token=T) is kept.
func roomURL(signal, room string) (string, error) {
	u, err := signalurl.Room(signal, room, "")
	if err != nil {
		return "", fmt.Errorf("pong: -signal wants ws://HOST:PORT or wss://HOST (a room token as ?token=T), got %q", signalurl.Redact(signal))
	}
	return u, nil
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
	// A room token rides in -signal's query, and stays a query.
	u, err = roomURL("ws://example.org:8080?token=T", "tr")
	require.NoError(t, err)
	require.Equal(t, "ws://example.org:8080/room/tr?token=T", u)
	_, err = roomURL("http://example.org?token=SECRET", "x")
	require.NotContains(t, err.Error(), "SECRET", "a token is never echoed")
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

// proc is a demo process a test started and reads line by line.
type proc struct {
	ctx     context.Context // kills it when done
	cmd     *exec.Cmd
	out     strings.Builder
	joined  chan struct{} // closed once it is in the room
	started chan struct{} // closed once its match started
	read    chan struct{} // closed once out holds all the output
}

// startDemo starts the demo with args, as its own process.
func startDemo(ctx context.Context, t *testing.T, args ...string) *proc {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	p := &proc{ctx: ctx, cmd: demoCommand(ctx, exe, args...),
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

// demoCommand is exec.CommandContext, except that the context's end
// sends SIGQUIT first: a demo still running when its test's bound ends
// prints every goroutine's stack (into the output the test reports), and
// is killed 5 s later if that did not end it.
func demoCommand(ctx context.Context, exe string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGQUIT) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// await waits for c, failing the test with what if ctx ends first.
func await(ctx context.Context, t *testing.T, c <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-ctx.Done():
		t.Fatalf("%s (waited until the test's bound: %v)", what, context.Cause(ctx))
	}
}

// processTestBound is how long a process test may run: its processes are
// killed then, and the test fails saying what it was waiting for.
const processTestBound = 90 * time.Second

// processTest is a signaling server on loopback, and a context that ends
// a process test that runs over processTestBound (or nearer the package's
// deadline).
func processTest(t *testing.T) (*signalServer, context.Context) {
	t.Helper()
	srv, err := startSignalServer()
	require.NoError(t, err)
	t.Cleanup(srv.close)
	d := within(t, processTestBound)
	ctx, cancel := context.WithTimeoutCause(context.Background(), d,
		fmt.Errorf("the process test's bound of %v passed", d.Round(time.Second)))
	t.Cleanup(cancel)
	return srv, ctx
}

// within is d, or less when the test binary's deadline (go test -timeout,
// 10 minutes by default) comes sooner: the longest a wait may take and
// still fail with its own message before the whole package's timeout
// panics with nothing but goroutine stacks.
func within(t testing.TB, d time.Duration) time.Duration {
	type deadliner interface{ Deadline() (time.Time, bool) }
	if dt, ok := t.(deadliner); ok {
		if dl, ok := dt.Deadline(); ok {
			if left := time.Until(dl) - 20*time.Second; left < d {
				return max(left, time.Second)
			}
		}
	}
	return d
}

// startPair starts two players with args (and their own extras): the
// left one first, the right one once the left one is in the room. It
// returns once the left one's match has started.
func startPair(ctx context.Context, t *testing.T, args, leftExtra, rightExtra []string) (left, right *proc) {
	t.Helper()
	left = startDemo(ctx, t, append(slices.Clip(args), leftExtra...)...) // in the room first: the left player, the host
	await(ctx, t, left.joined, "the first player never joined")
	right = startDemo(ctx, t, append(slices.Clip(args), rightExtra...)...)
	await(ctx, t, left.started, "the match never started")
	return left, right
}

// end waits for the process to exit (at most until its context ends, which
// kills it and fails the test) and returns its output and status.
func (p *proc) end(t *testing.T) (string, int) {
	t.Helper()
	<-p.read // before Wait, which closes the pipe
	_ = p.cmd.Wait()
	if err := p.ctx.Err(); err != nil {
		t.Fatalf("waited for the demo process %q to exit: still running when the test's bound ended (%v), killed; its output:\n%s",
			p.cmd.Args[1:], context.Cause(p.ctx), withoutChecksums(p.out.String()))
	}
	return p.out.String(), p.cmd.ProcessState.ExitCode()
}

// TestSurvivorSaysHowTheOpponentLeft: two players in a room; one is ended
// by SIGTERM (it quits: its session says goodbye) or SIGKILL (it vanishes
// without a word); the survivor's report says which, and it exits 4.
func TestSurvivorSaysHowTheOpponentLeft(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four processes for about 10 s")
	}
	srv, ctx := processTest(t)
	type pair struct {
		sig         syscall.Signal
		want        string
		left, right *proc
	}
	pairs := []*pair{
		{sig: syscall.SIGTERM, want: "result              root quit at frame "},
		{sig: syscall.SIGKILL, want: "result              root dropped at frame "},
	}
	for _, p := range pairs {
		args := []string{"-signal", srv.url, "-room", "left-" + p.sig.String(), "-headless", "-frames", "-1", "-timeout", "20s"}
		p.left, p.right = startPair(ctx, t, args, nil, nil)
	}
	for _, p := range pairs {
		await(ctx, t, p.right.started, "the match never started")
		require.NoError(t, p.right.cmd.Process.Signal(p.sig))
	}
	for _, p := range pairs {
		out, status := p.left.end(t)
		rout, rstatus := p.right.end(t)
		t.Logf("%v: survivor (status %d):\n%s\nthe other (status %d):\n%s", p.sig, status, out, rstatus, rout)
		require.Equal(t, exitOpponentLeft, status, "survivor of %v", p.sig)
		require.Contains(t, out, p.want)
		if p.sig == syscall.SIGTERM {
			require.Equal(t, exitOK, rstatus, "a player who quits ends cleanly")
		}
	}
}

// TestSpectateRoomJoinsRunningMatch: two players in a room on a signaling
// server start their match; a third process started only then, with
// -signal -room -spectate, is added by the left player and watches the
// match from frame 0; all three agree.
func TestSpectateRoomJoinsRunningMatch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three processes")
	}
	srv, ctx := processTest(t)
	args := []string{"-signal", srv.url, "-room", "watched", "-headless", "-frames", "360", "-fps", "120", "-timeout", "20s"}
	left, right := startPair(ctx, t, args, []string{"-name", "alice"}, []string{"-name", "bob"})
	watcher := startDemo(ctx, t, append(args, "-spectate")...)
	for _, p := range []*proc{left, right, watcher} {
		p.end(t)
	}
	out := left.out.String() + right.out.String() + watcher.out.String()
	t.Logf("left, right, spectator:\n%s", out)
	for _, p := range []*proc{left, right, watcher} {
		require.Equal(t, exitOK, p.cmd.ProcessState.ExitCode())
	}
	require.Regexp(t, `news +spectator \S+ joined at frame \d+`, left.out.String()+right.out.String(), "the seat-0 player fed the spectator")
	require.Contains(t, watcher.out.String(), "pong report (spectator)")
	require.Contains(t, watcher.out.String(), "frames played       360")
	require.Equal(t, 3, strings.Count(out, "(checksums agree)"))
	// Names, not ids: the players said theirs to each other, and the
	// seat-0 one to the spectator (seats by the players' ids: either way).
	players := strings.Count(out, "players             alice (left) vs bob (right)") + strings.Count(out, "players             bob (left) vs alice (right)")
	require.Equal(t, 3, players, "%s", out)
	require.Regexp(t, `pong: match started: alice \((left|right)\) against bob \(`, left.out.String())
}

// TestCancelWhileWaiting: a player waiting for an opponent who gives up
// (Ctrl-C: SIGINT, or SIGTERM) is told the wait was cancelled and the
// exit status is 0, not "context canceled" and 3.
func TestCancelWhileWaiting(t *testing.T) {
	srv, ctx := processTest(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		p := startDemo(ctx, t, "-signal", srv.url, "-room", "alone-"+sig.String(), "-headless", "-timeout", "20s")
		await(ctx, t, p.joined, "never joined the room")
		require.NoError(t, p.cmd.Process.Signal(sig))
		out, status := p.end(t)
		require.Equal(t, exitOK, status, "%v: %s", sig, out)
		require.Contains(t, out, "pong: cancelled while waiting for the opponent", "%v", sig)
		require.NotContains(t, out, "context canceled")
	}
}

// TestQuitKeyWhileWaiting: on the terminal, q (or Esc, Ctrl-C) while
// waiting for an opponent cancels the wait. The key is pressed when the
// waiting screen says the player is in the room (no clock, no polling);
// a key that did not cancel leaves the wait to -timeout, which fails with
// exit 3 and "no opponent", not 0 and "cancelled".
func TestQuitKeyWhileWaiting(t *testing.T) {
	srv, err := startSignalServer()
	require.NoError(t, err)
	defer srv.close()
	for _, key := range []*tcell.EventKey{
		tcell.NewEventKey(tcell.KeyRune, 'q', 0),
		tcell.NewEventKey(tcell.KeyCtrlC, 0, 0),
	} {
		v, sc := simView(t, -1)
		o, err := parseOptions([]string{"-signal", srv.url, "-room", "alone", "-timeout", "20s"})
		require.NoError(t, err)
		o.view = v
		var said []string
		v.said = func(msg string) { // on runNet's goroutine
			if said = append(said, msg); strings.Contains(msg, "waiting up to") {
				require.NoError(t, sc.PostEvent(key))
			}
		}
		var stdout, stderr strings.Builder
		status := runNet(context.Background(), o, &stdout, &stderr, nil)
		require.Equal(t, exitOK, status, "%s: the key did not cancel the wait (it ran to -timeout): %s", key.Name(), stderr.String())
		require.Contains(t, stdout.String(), "cancelled while waiting")
		require.Contains(t, said[0], "joining "+srv.url, "%q", said)
		require.Contains(t, said[len(said)-1], "in room alone", "the key came once in the room: %q", said)
	}
}

// TestThirdPlayerIsToldTheRoomIsFull: a player who joins a room where two
// players already are is told the room is full and to add -spectate (not
// that "settings differ"), and the match in the room goes on.
func TestThirdPlayerIsToldTheRoomIsFull(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three processes")
	}
	srv, ctx := processTest(t)
	args := []string{"-signal", srv.url, "-room", "full", "-headless", "-frames", "240", "-fps", "120", "-timeout", "20s"}
	left, right := startPair(ctx, t, args, nil, nil)
	third := startDemo(ctx, t, args...)
	out, status := third.end(t)
	t.Logf("third player:\n%s", out)
	require.Equal(t, exitFailure, status, out)
	require.Contains(t, out, "pong: room full is full: two players are in it; add -spectate to watch their match")
	require.NotContains(t, out, "settings differ")
	for _, p := range []*proc{left, right} {
		out, status := p.end(t)
		require.Equal(t, exitOK, status, out)
	}
}

// TestSpectatorTooEarly: a spectator in a room with no match yet is told
// so in words (it once said "0 peers", "1 peers"), while it waits and at
// the end.
func TestSpectatorTooEarly(t *testing.T) {
	srv, err := startSignalServer()
	require.NoError(t, err)
	defer srv.close()
	out, status := demo(t, 30*time.Second, "-signal", srv.url, "-room", "early", "-spectate", "-headless", "-timeout", "5s")
	require.Equal(t, exitFailure, status, out)
	require.Contains(t, out, "pong: in room early on "+srv.url+"; waiting up to 5s for a match to watch")
	require.Regexp(t, `pong: room early: still no match to watch in it, \ds of 5s waited`, out)
	require.Contains(t, out, "pong: room early: no match in it within 5s; a spectator can join once both players are in the room")
}

// TestWebBusyPort: -web on a port already taken fails before the browser
// pong's build (which took 10 s to reach the same error), saying why.
func TestWebBusyPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	out, status := demo(t, 30*time.Second, "-web", ln.Addr().String())
	require.Equal(t, exitFailure, status, out)
	require.Contains(t, out, "address already in use")
	require.NotContains(t, out, "building the browser pong", "the port is taken before the build")
}
