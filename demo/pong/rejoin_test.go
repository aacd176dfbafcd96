package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// rejoinPair is two -rejoin players in one process, over the local
// network on a fake clock: the right one can die (its endpoint closed,
// no goodbye) and come back as a new session from its FILE.
type rejoinPair struct {
	clock  *local.Clock
	net    *local.Network
	left   *netMatch
	right  *netMatch
	dead   *netMatch // the right player killed
	opts   [2]options
	closer []func()
}

func newRejoinPair(t *testing.T) *rejoinPair {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	dir := t.TempDir()
	clock := local.NewClock(time.Unix(1_700_000_000, 0))
	nw, err := local.NewNetwork(local.Config{Seed: 7, Now: clock.Now, Link: local.Link{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.01}})
	require.NoError(t, err)
	rp := &rejoinPair{clock: clock, net: nw}
	for side, name := range []string{"alice", "bob"} {
		rp.opts[side] = options{delay: 2, fps: 60, seed: 99, room: "friday", name: name, rejoin: filepath.Join(dir, sideName(side)+".rejoin")}
	}
	rp.left = rp.start(t, 0, nil)
	rp.right = rp.start(t, 1, nil)
	rp.left.names[1], rp.right.names[0] = "bob", "alice" // what their hellos say over a network
	t.Cleanup(func() {
		for _, c := range rp.closer {
			c()
		}
	})
	return rp
}

// start starts side's player on a new endpoint, coming back from back if
// not nil.
func (rp *rejoinPair) start(t *testing.T, side int, back *rejoinFile) *netMatch {
	t.Helper()
	if rp.dead != nil {
		require.NoError(t, rp.dead.tr.(*local.Endpoint).Close())
	}
	e, err := rp.net.Endpoint(sideName(side))
	require.NoError(t, err)
	o := rp.opts[side]
	o.back = back
	m, err := newP2PMatch(e, transport.Peer(sideName(1-side)), side, o, rp.clock.Now, rand.New(rand.NewPCG(uint64(side), uint64(time.Now().UnixNano()))).Uint64)
	require.NoError(t, err)
	if back != nil {
		m.names, m.names[side] = back.Names, o.name
	}
	rp.closer = append(rp.closer, func() { _ = m.Close(); _ = e.Close() })
	return m
}

// kill makes the right player's process vanish: it is never ticked
// again, so it says nothing (a closed local endpoint would make the left
// one's sends fail at once, like a goodbye); its endpoint closes when a
// new process takes its name.
func (rp *rejoinPair) kill(t *testing.T) {
	t.Helper()
	rp.dead, rp.right = rp.right, nil
}

// tick advances the clock a frame and ticks the live players with bots.
func (rp *rejoinPair) tick(t *testing.T) (errLeft, errRight error) {
	t.Helper()
	rp.clock.Advance(time.Second / 60)
	errLeft = rp.left.Tick(Bot(rp.left.State(), 0))
	if rp.right != nil {
		errRight = rp.right.Tick(Bot(rp.right.State(), 1))
	}
	return errLeft, errRight
}

// playTo ticks both until both reached frame f.
func (rp *rejoinPair) playTo(t *testing.T, f session.Frame) {
	t.Helper()
	for n := 0; rp.left.p.Frame() < f || rp.right.p.Frame() < f; n++ {
		require.Less(t, n, 4*int(f)+600, "the match does not advance")
		errL, errR := rp.tick(t)
		require.NoError(t, errL)
		require.NoError(t, errR)
	}
}

// TestRejoinInProcess: the right player dies; the left one keeps playing
// and counts down the window; a new right session started from FILE
// catches up without drawing and plays on with the same paddle; both
// agree on every confirmed frame from R on; the reports say so.
func TestRejoinInProcess(t *testing.T) {
	rp := newRejoinPair(t)
	rp.playTo(t, 300)
	for side := range 2 {
		fi, err := os.Stat(rp.opts[side].rejoin)
		require.NoError(t, err, "FILE written once the token is there")
		require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	}
	rp.kill(t)
	// The left player hears nothing, declares it disconnected after
	// dropAfter and plays on, its opponent's input frozen.
	var note string
	for n := 0; !strings.HasPrefix(note, "right dropped"); n++ {
		require.Less(t, n, 600, "never declared disconnected")
		errL, _ := rp.tick(t)
		require.NoError(t, errL)
		note = rp.left.HUD().Note
	}
	require.Equal(t, "right dropped — can rejoin for 60 s", note)
	for range 181 { // three seconds later
		errL, _ := rp.tick(t)
		require.NoError(t, errL)
	}
	require.Equal(t, "right dropped — can rejoin for 57 s", rp.left.HUD().Note)

	back, err := readRejoin(rp.opts[1])
	require.NoError(t, err)
	require.NotNil(t, back)
	require.Equal(t, 1, back.Side)
	require.Equal(t, [2]string{"alice", "bob"}, back.Names)
	rp.right = rp.start(t, 1, back)
	var progress []string
	for n := 0; rp.right.rj.rejoinedAt == 0; n++ {
		require.Less(t, n, 600, "never rejoined")
		if h := rp.right.HUD(); h.Rejoining != "" {
			progress = append(progress, h.Rejoining)
		}
		errL, errR := rp.tick(t)
		require.NoError(t, errL)
		require.NoError(t, errR)
	}
	r := rp.right.rj.rejoinedAt
	t.Logf("rejoined at frame %d; progress %q", r, progress)
	require.Contains(t, progress[0], "rejoining: ")
	require.Contains(t, strings.Join(progress, "\n"), "rejoining: frame ")
	rp.playTo(t, r+600)
	require.Contains(t, rp.left.HUD().Note, "right rejoined at frame ")

	// Every confirmed frame from R on agrees.
	to := min(rp.left.p.ConfirmedFrame(), rp.right.p.ConfirmedFrame(), rp.left.p.Frame()-1, rp.right.p.Frame()-1)
	compared := 0
	for f := max(r, to-capacity+1); f <= to; f++ {
		cl, errL := rp.left.p.ChecksumAt(f)
		cr, errR := rp.right.p.ChecksumAt(f)
		require.NoError(t, errL)
		require.NoError(t, errR)
		require.Equal(t, cl, cr, "frame %d", f)
		compared++
	}
	require.Positive(t, compared)
	rr := rp.right.Report()
	require.Zero(t, rr.Desyncs)
	require.Positive(t, rr.Compared, "the session compared checksums after the rejoin")
	lr := rp.left.Report()
	require.Zero(t, lr.Desyncs)
	require.Empty(t, lr.Left)
	require.Len(t, lr.Rejoins, 2, "%q", lr.Rejoins)
	require.Contains(t, lr.Rejoins[0], "right dropped at frame ")
	require.Contains(t, lr.Rejoins[1], "right rejoined at frame ")
	require.Contains(t, rr.Rejoins[0], "rejoined at frame ")
}

// dropRight kills the right player and ticks the left one until it
// declared it disconnected.
func (rp *rejoinPair) dropRight(t *testing.T) {
	t.Helper()
	rp.kill(t)
	for n := 0; rp.left.rj.droppedAt.IsZero(); n++ {
		require.Less(t, n, 600, "never declared disconnected")
		errL, _ := rp.tick(t)
		require.NoError(t, errL)
	}
}

// TestRejoinWindowPasses: a right player that does not come back within
// the window is, for the left one, an opponent that vanished (exit 4),
// after the left one played on alone all that time.
func TestRejoinWindowPasses(t *testing.T) {
	rp := newRejoinPair(t)
	rp.playTo(t, 120)
	rp.dropRight(t)
	from := rp.left.p.Frame()
	var err error
	for n := 0; err == nil; n++ {
		require.Less(t, n, int(rejoinWindow/time.Second)*60+60, "the window never ended")
		err, _ = rp.tick(t)
	}
	require.ErrorIs(t, err, errPeerLeft)
	require.Greater(t, rp.left.p.Frame(), from+55*60, "the left player played on through the window")
	r := rp.left.Report()
	require.Contains(t, r.Left, "the opponent vanished: declared disconnected at frame ")
	require.Contains(t, r.Left, "did not rejoin within 1m0s")
	require.Equal(t, exitOpponentLeft, r.status())
}

// TestRejoinRefused: a right player coming back with a token that is not
// its own (another match's FILE) is refused: the report is the one line
// saying why, and the status is exitRejoinRefused. The left one plays on.
func TestRejoinRefused(t *testing.T) {
	rp := newRejoinPair(t)
	rp.playTo(t, 120)
	rp.dropRight(t)
	back, err := readRejoin(rp.opts[1])
	require.NoError(t, err)
	back.Secret = strings.Repeat("ab", len(back.Secret)/2) // another match's
	rp.right = rp.start(t, 1, back)
	var errR error
	for n := 0; errR == nil; n++ {
		require.Less(t, n, 600, "never refused")
		var errL error
		errL, errR = rp.tick(t)
		require.NoError(t, errL)
	}
	require.ErrorIs(t, errR, session.ErrRejoinRefused)
	r := rp.right.Report()
	require.Equal(t, exitRejoinRefused, r.status())
	var out strings.Builder
	r.print(&out)
	require.Equal(t, "pong: rejoin refused by the left player: "+session.ReasonRejoinIdentity+" ("+rp.opts[1].rejoin+" removed)\n", out.String())
	require.NotEmpty(t, rp.left.rejoinWait(), "the left player still waits for the real one")
}

// TestRejoinFile: FILE round-trips; a damaged one, or one of another
// room or other settings, is a usage error naming the problem; no FILE
// is no error.
func TestRejoinFile(t *testing.T) {
	dir := t.TempDir()
	o := options{delay: 2, fps: 60, room: "friday", rejoin: filepath.Join(dir, "f")}
	back, err := readRejoin(o)
	require.NoError(t, err)
	require.Nil(t, back)
	tok := session.RejoinToken{Match: 0x0123456789abcdef}
	for i := range tok.Secret {
		tok.Secret[i] = byte(i * 7)
	}
	m := &netMatch{matchLog: matchLog{o: o, names: [2]string{"alice", "bob"}}, side: 1, peer: "opp"}
	want := newRejoinFile(m, tok)
	require.NoError(t, writeRejoin(o.rejoin, want))
	got, err := readRejoin(o)
	require.NoError(t, err)
	require.Equal(t, want, *got)
	require.Equal(t, tok, got.token())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left")

	good, err := os.ReadFile(o.rejoin)
	require.NoError(t, err)
	for _, tc := range []struct {
		name, content string
		o             func(*options)
		msg           string
	}{
		{name: "garbage", content: "\x00\x01 not json", msg: "not a pong rejoin file"},
		{name: "truncated", content: string(good[:len(good)/2]), msg: "not a pong rejoin file"},
		{name: "other format", content: strings.Replace(string(good), rejoinFormat, "x", 1), msg: "not a pong rejoin file"},
		{name: "version", content: strings.Replace(string(good), `"version": 1`, `"version": 2`, 1), msg: "format version 2"},
		{name: "secret", content: strings.Replace(string(good), want.Secret, "zz", 1), msg: "damaged"},
		{name: "side", content: strings.Replace(string(good), `"side": 1`, `"side": 7`, 1), msg: "damaged"},
		{name: "room", content: string(good), o: func(o *options) { o.room = "saturday" }, msg: `written for room "friday", not "saturday"`},
		{name: "delay", content: string(good), o: func(o *options) { o.delay = 3 }, msg: "start with the same flags"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(o.rejoin, []byte(tc.content), 0o600))
			o := o
			if tc.o != nil {
				tc.o(&o)
			}
			_, err := readRejoin(o)
			var ue *usageErr
			require.ErrorAs(t, err, &ue)
			require.Contains(t, err.Error(), tc.msg)
			require.NotContains(t, err.Error(), "\n")
		})
	}
}
