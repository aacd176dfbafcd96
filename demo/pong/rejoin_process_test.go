package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rollnet/rollnet/netplay"
	"github.com/stretchr/testify/require"
)

// rebindLanded says whether the session rebinds a player link to the new
// address a restarted process comes back from (the rebind branch): over
// WebRTC a new process has a new signaling id, which the other player's
// session ignores without it.
const rebindLanded = true

// sumLine is a checksum line a -rejoin player prints (headless).
var sumLine = regexp.MustCompile(`^pong: checksum frame (\d+) ([0-9a-f]{8})$`)

// sumsOf reads the checksum lines of one process's output.
func sumsOf(out string) map[int]string {
	sums := map[int]string{}
	for _, line := range strings.Split(out, "\n") {
		if m := sumLine.FindStringSubmatch(line); m != nil {
			f, _ := strconv.Atoi(m[1])
			sums[f] = m[2]
		}
	}
	return sums
}

// TestRejoinAcrossProcesses drives -rejoin over WebRTC on loopback: two
// players with -rejoin play; the right one is killed (SIGKILL: it says
// nothing) after about ten seconds; the left one plays on and says the
// right one dropped. A process started with another match's FILE for the
// right seat is refused: one line says why, its FILE is removed, it exits
// exitRejoinRefused, and nothing changes. The right one started again
// with the same flags comes back from its FILE at a frame R, catching up
// without drawing, and both play to the frame budget. Both print the
// checksums of confirmed frames: those after R agree; the left one's
// report says the right one rejoined at R; both FILEs are gone at the
// end.
func TestRejoinAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four processes for about 30 s")
	}
	if !rebindLanded {
		t.Skip("needs the session to rebind a rejoining player's link to its new address (branch rebind): a restarted process has a new WebRTC signaling id")
	}
	srv, ctx := processTest(t)
	dir := t.TempDir()
	files := [2]string{filepath.Join(dir, "left.rejoin"), filepath.Join(dir, "right.rejoin")}
	args := []string{"-signal", srv.url, "-room", "comeback", "-headless", "-frames", "1500", "-timeout", "20s"}
	playerArgs := func(name, file string) []string {
		return append(append([]string{}, args...), "-name", name, "-rejoin", file)
	}

	left := startWatched(ctx, t, playerArgs("alice", files[0])...)
	left.waitFor(ctx, t, regexp.MustCompile(`^pong: in room`))
	right := startWatched(ctx, t, playerArgs("bob", files[1])...)
	right.waitFor(ctx, t, regexp.MustCompile(`^pong: rejoin token saved in `))
	// About ten seconds of play (a frame of 600 or more: a checksum no
	// longer held when due is not printed).
	right.waitFor(ctx, t, regexp.MustCompile(`^pong: checksum frame ([6-9]\d\d|\d{4,}) `))
	saved, err := os.ReadFile(files[1])
	require.NoError(t, err)
	require.NoError(t, right.cmd.Process.Signal(syscall.SIGKILL))
	first, _ := right.end(t)
	t.Logf("first right:\n%s", withoutChecksums(first))
	left.waitFor(ctx, t, regexp.MustCompile(`^pong: bob dropped at frame \d+ .*: may rejoin for 60 s$`))

	// Another match's FILE for bob's seat: bob's with another secret.
	var tok netplay.Token
	require.NoError(t, tok.UnmarshalText(saved[:len(saved)-1]))
	tok.Rejoin.Secret[0] ^= 0x5a
	stranger := filepath.Join(dir, "stranger.rejoin")
	require.NoError(t, netplay.FileStore(stranger).Save(tok))
	out, status := startWatched(ctx, t, playerArgs("mallory", stranger)...).end(t)
	t.Logf("stranger (status %d):\n%s", status, out)
	require.Equal(t, exitRejoinRefused, status)
	require.Contains(t, out, "pong: rejoin refused by alice: wrong match id or secret (not the player who left)")
	_, err = os.Stat(stranger)
	require.ErrorIs(t, err, os.ErrNotExist, "a refusal removes FILE")

	again := startWatched(ctx, t, playerArgs("bob", files[1])...)
	r := again.waitFor(ctx, t, regexp.MustCompile(`^pong: rejoined at frame (\d+): replayed \d+ frames in `))[1]
	out, status = again.end(t)
	t.Logf("restarted right (status %d):\n%s", status, withoutChecksums(out))
	lout, lstatus := left.end(t)
	t.Logf("left (status %d):\n%s", lstatus, withoutChecksums(lout))
	require.Equal(t, exitOK, status)
	require.Equal(t, exitOK, lstatus)
	require.Contains(t, out, "pong: rejoining: frame ", "the catch-up's progress")
	require.Contains(t, out, "result              ok")
	require.Contains(t, lout, "bob rejoined at frame "+r)
	require.Contains(t, lout, "result              ok")
	require.NotContains(t, lout, "spectator", "neither newcomer was taken for a spectator")

	// The checksums both printed for frames from R on agree.
	rf, _ := strconv.Atoi(r)
	ls, rs := sumsOf(lout), sumsOf(out)
	same := 0
	for f, crc := range rs {
		require.GreaterOrEqual(t, f, rf, "the restarted right prints from R on")
		if l, ok := ls[f]; ok {
			require.Equal(t, l, crc, "frame %d", f)
			same++
		}
	}
	// R is some 500 frames before the end unless the restarts took
	// seconds each.
	require.GreaterOrEqual(t, same, 3, "frames after R compared: %d of left's %d, right's %d", same, len(ls), len(rs))
	for _, f := range files {
		_, err := os.Stat(f)
		require.ErrorIs(t, err, os.ErrNotExist, "a match that ended removes its FILE")
	}
}

// TestRejoinProcessFlags: -rejoin without a named room is a bad command
// line (2), as is a damaged FILE; neither touches the network.
func TestRejoinProcessFlags(t *testing.T) {
	out, status := demo(t, 30*time.Second, "-signal", "ws://127.0.0.1:1", "-rejoin", filepath.Join(t.TempDir(), "f"), "-headless")
	require.Equal(t, exitUsage, status, out)
	require.Contains(t, out, "-rejoin needs a named -room")

	f := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(f, []byte("{\"format\":"), 0o600))
	out, status = demo(t, 30*time.Second, "-signal", "ws://127.0.0.1:1", "-room", "x", "-rejoin", f, "-headless")
	require.Equal(t, exitUsage, status, out)
	require.Equal(t, 1, strings.Count(out, "\n"), "one line: %s", out)
	require.Contains(t, out, "malformed token")
	_, err := os.Stat(f)
	require.NoError(t, err, "a damaged FILE is the player's to look at: kept")
}

// TestRejoinMatchOver: a FILE whose match nobody in the room plays any
// more names a match that is over: one line says so, FILE is removed (it
// would fail the same way at every start), the status is a failure to
// connect.
func TestRejoinMatchOver(t *testing.T) {
	srv, err := startSignalServer()
	require.NoError(t, err)
	defer srv.close()
	f := filepath.Join(t.TempDir(), "f")
	var tok netplay.Token
	tok.Mode, tok.Room, tok.Seat, tok.Rejoin.Match = netplay.ModeP2P, "over", 1, 0x0011223344556677
	require.NoError(t, netplay.FileStore(f).Save(tok))
	out, status := demo(t, 30*time.Second, "-signal", srv.url, "-room", "over", "-rejoin", f, "-headless", "-timeout", "5s")
	require.Equal(t, exitFailure, status, out)
	require.Contains(t, out, "pong: -rejoin: nobody of the match in room over answered within 5s, so it is over")
	_, err = os.Stat(f)
	require.ErrorIs(t, err, os.ErrNotExist)
}
