package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// rejoinPair is two -rejoin players in one process, over the local
// network on a fake clock: either can die (never ticked again: it says
// nothing) and come back as a new session from its FILE.
type rejoinPair struct {
	clock  *local.Clock
	net    *local.Network
	p      [2]*netMatch // by side; nil while dead
	dead   *netMatch    // the player killed
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
	rp.p[0] = rp.start(t, 0, nil)
	rp.p[1] = rp.start(t, 1, nil)
	rp.p[0].names[1], rp.p[1].names[0] = "bob", "alice" // what their hellos say over a network
	t.Cleanup(func() {
		for _, c := range rp.closer {
			c()
		}
	})
	return rp
}

// start starts side's player on a new endpoint (named by its side),
// coming back from back if not nil.
func (rp *rejoinPair) start(t *testing.T, side int, back *rejoinFile) *netMatch {
	return rp.startAt(t, sideName(side), side, back)
}

// startAt is start on an endpoint named addr.
func (rp *rejoinPair) startAt(t *testing.T, addr string, side int, back *rejoinFile) *netMatch {
	t.Helper()
	if rp.dead != nil && string(rp.dead.tr.Local()) == addr {
		// Closed only now, and only to take its name: a local endpoint
		// closed earlier would make the other player's sends fail at
		// once, which it takes for a goodbye (over WebRTC, the dead
		// process goes silent first).
		require.NoError(t, rp.dead.tr.(*local.Endpoint).Close())
	}
	e, err := rp.net.Endpoint(addr)
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

// tick advances the clock a frame and ticks the live players with bots.
func (rp *rejoinPair) tick(t *testing.T) (errs [2]error) {
	t.Helper()
	rp.clock.Advance(time.Second / 60)
	for side, m := range rp.p {
		if m != nil {
			errs[side] = m.Tick(Bot(m.State(), side))
		}
	}
	return errs
}

// playTo ticks both until both reached frame f.
func (rp *rejoinPair) playTo(t *testing.T, f rollnet.Frame) {
	t.Helper()
	for n := 0; rp.p[0].p.Frame() < f || rp.p[1].p.Frame() < f; n++ {
		require.Less(t, n, 4*int(f)+600, "the match does not advance")
		errs := rp.tick(t)
		require.NoError(t, errs[0])
		require.NoError(t, errs[1])
	}
}

// drop kills side's player and ticks the other one until it declared it
// disconnected.
func (rp *rejoinPair) drop(t *testing.T, side int) {
	t.Helper()
	rp.dead, rp.p[side] = rp.p[side], nil
	for n := 0; rp.p[1-side].rj.droppedAt.IsZero(); n++ {
		require.Less(t, n, 600, "never declared disconnected")
		require.NoError(t, rp.tick(t)[1-side])
	}
}

// TestRejoinInProcess: a player dies; the other one keeps playing and
// counts down the window; a new session started from the dead one's FILE,
// at the same address or a new one (a restarted process over WebRTC),
// catches up without drawing and plays on with the same paddle; both
// agree on every confirmed frame from R on; the reports say so.
func TestRejoinInProcess(t *testing.T) {
	for _, tc := range []struct {
		dies int
		addr string // the new process's address
	}{{1, "right"}, {0, "left"}, {1, "right again"}, {0, "left again"}} {
		dies := tc.dies
		t.Run(sideName(dies)+" dies, back at "+tc.addr, func(t *testing.T) {
			rp := newRejoinPair(t)
			rp.playTo(t, 300)
			for side := range 2 {
				fi, err := os.Stat(rp.opts[side].rejoin)
				require.NoError(t, err, "FILE written once the token is there")
				require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
			}
			lives := 1 - dies
			who := sideName(dies)
			rp.drop(t, dies)
			require.Equal(t, who+" dropped — can rejoin for 60 s", rp.p[lives].HUD().Note)
			for range 181 { // three seconds later
				require.NoError(t, rp.tick(t)[lives], "the other player plays on")
			}
			require.Equal(t, who+" dropped — can rejoin for 57 s", rp.p[lives].HUD().Note)

			back, err := readRejoin(rp.opts[dies])
			require.NoError(t, err)
			require.NotNil(t, back)
			require.Equal(t, dies, back.Side)
			require.Equal(t, [2]string{"alice", "bob"}, back.Names)
			rp.p[dies] = rp.startAt(t, tc.addr, dies, back)
			var progress []string
			for n := 0; rp.p[dies].rj.rejoinedAt == 0; n++ {
				require.Less(t, n, 600, "never rejoined")
				if h := rp.p[dies].HUD(); h.Rejoining != "" {
					progress = append(progress, h.Rejoining)
				}
				errs := rp.tick(t)
				require.NoError(t, errs[0])
				require.NoError(t, errs[1])
			}
			r := rp.p[dies].rj.rejoinedAt
			rp.tick(t)
			require.Equal(t, fmt.Sprintf("rejoined at frame %d: replayed %d frames in %v", r, rp.p[dies].p.RejoinStats().Replayed, rp.p[dies].p.RejoinStats().CatchUp.Round(time.Millisecond)),
				rp.p[dies].HUD().Note, "its screen says so once it plays")
			t.Logf("rejoined at frame %d; progress from %q to %q", r, progress[0], progress[len(progress)-1])
			require.Equal(t, progress[0], "rejoining: asking "+rp.opts[lives].name+" to take us back")
			require.Contains(t, strings.Join(progress, "\n"), "rejoining: frame ")
			// Every confirmed frame from R on agrees, state by state.
			agree := &mirror{a: rp.p[0], b: rp.p[1], next: r}
			for n := 0; rp.p[0].p.Frame() < r+600 || rp.p[1].p.Frame() < r+600; n++ {
				require.Less(t, n, 1200, "the match does not advance")
				errs := rp.tick(t)
				require.NoError(t, errs[0])
				require.NoError(t, errs[1])
				agree.agree(t)
			}
			require.Greater(t, agree.next, r+500, "every frame compared from R on")
			require.Contains(t, rp.p[lives].HUD().Note, who+" rejoined at frame ")
			require.Equal(t, transport.Peer(tc.addr), rp.p[lives].peer, "the opponent is where it came back from")
			back2 := rp.p[dies].Report()
			require.Zero(t, back2.Desyncs)
			require.Positive(t, back2.Compared, "the session compared checksums after the rejoin")
			require.Contains(t, back2.Rejoins[0], fmt.Sprintf("rejoined at frame %d: replayed ", r))
			lr := rp.p[lives].Report()
			require.Zero(t, lr.Desyncs)
			require.Empty(t, lr.Left)
			require.Len(t, lr.Rejoins, 2, "%q", lr.Rejoins)
			require.Contains(t, lr.Rejoins[0], who+" dropped at frame ")
			require.Equal(t, lr.Rejoins[1], fmt.Sprintf("%s rejoined at frame %d", who, r))
		})
	}
}

// TestRejoinWindowPasses: a right player that does not come back within
// the window is, for the left one, an opponent that vanished (exit 4),
// after the left one played on alone all that time.
func TestRejoinWindowPasses(t *testing.T) {
	rp := newRejoinPair(t)
	rp.playTo(t, 120)
	rp.drop(t, 1)
	from := rp.p[0].p.Frame()
	var err error
	for n := 0; err == nil; n++ {
		require.Less(t, n, int(rejoinWindow/time.Second)*60+60, "the window never ended")
		err = rp.tick(t)[0]
	}
	require.ErrorIs(t, err, errPeerLeft)
	require.Greater(t, rp.p[0].p.Frame(), from+55*60, "the left player played on through the window")
	r := rp.p[0].Report()
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
	rp.drop(t, 1)
	back, err := readRejoin(rp.opts[1])
	require.NoError(t, err)
	back.Secret = strings.Repeat("ab", len(back.Secret)/2) // another match's
	rp.p[1] = rp.start(t, 1, back)
	var errs [2]error
	for n := 0; errs[1] == nil; n++ {
		require.Less(t, n, 600, "never refused")
		errs = rp.tick(t)
		require.NoError(t, errs[0])
	}
	require.ErrorIs(t, errs[1], session.ErrRejoinRefused)
	r := rp.p[1].Report()
	require.Equal(t, exitRejoinRefused, r.status())
	var out strings.Builder
	r.print(&out)
	require.Equal(t, "pong: rejoin refused by the left player: "+session.ReasonRejoinIdentity+" ("+rp.opts[1].rejoin+" removed)\n", out.String())
	require.NotEmpty(t, rp.p[0].rejoinWait(), "the left player still waits for the real one")
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

// TestRejoinTickAllocs: with -rejoin, a frame allocates nothing at
// steady state, checksum lines included (FILE is written once), for
// both players after one of them came back too.
func TestRejoinTickAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	rp := newRejoinPair(t)
	var out strings.Builder
	out.Grow(1 << 20)
	for _, m := range rp.p {
		m.out = &out
	}
	rp.playTo(t, 300)
	tick := func() {
		errs := rp.tick(t)
		require.NoError(t, errs[0])
		require.NoError(t, errs[1])
	}
	require.Zero(t, testing.AllocsPerRun(600, tick))
	require.Contains(t, out.String(), "pong: checksum frame 600 ")

	rp.drop(t, 1)
	back, err := readRejoin(rp.opts[1])
	require.NoError(t, err)
	rp.p[1] = rp.startAt(t, "right again", 1, back)
	rp.p[1].out = &out
	for n := 0; rp.p[1].rj.rejoinedAt == 0 || rp.p[0].p.Frame() < rp.p[1].rj.rejoinedAt+300; n++ {
		require.Less(t, n, 1200, "never rejoined")
		tick()
	}
	require.Zero(t, testing.AllocsPerRun(600, tick))
}

// TestRejoinRestartAtOnce: the right player's process restarts at once,
// from a new address, and connects to the left one before the old one is
// even silent. The left one holds the newcomer (it would take it for a
// spectator otherwise, and the session would never hear its request as a
// player's) until the request proves it is the right player; a spectator
// who connects while both play is added after the probation.
func TestRejoinRestartAtOnce(t *testing.T) {
	rp := newRejoinPair(t)
	var connected []transport.Peer // what WebRTC's PeerConnected would say
	rp.p[0].newPeers = func(dst []transport.Peer) []transport.Peer {
		dst = append(dst, connected...)
		connected = connected[:0]
		return dst
	}
	rp.playTo(t, 300)

	connected = append(connected, "watcher")
	start := rp.clock.Now()
	for n := 0; len(rp.p[0].spectators) == 0; n++ {
		require.Less(t, n, 600, "the spectator was never added")
		errs := rp.tick(t)
		require.NoError(t, errs[0])
		require.NoError(t, errs[1])
	}
	require.GreaterOrEqual(t, rp.clock.Now().Sub(start), probation, "held for the probation first")
	require.Contains(t, rp.p[0].spectators[0], "spectator watcher joined at frame ")

	back, err := readRejoin(rp.opts[1])
	require.NoError(t, err)
	rp.dead, rp.p[1] = rp.p[1], nil
	rp.p[1] = rp.startAt(t, "right again", 1, back)
	connected = append(connected, "right again")
	for n := 0; rp.p[1].rj.rejoinedAt == 0; n++ {
		require.Less(t, n, 900, "never rejoined")
		errs := rp.tick(t)
		require.NoError(t, errs[0])
		require.NoError(t, errs[1])
	}
	rp.playTo(t, rp.p[1].rj.rejoinedAt+120)
	require.Len(t, rp.p[0].spectators, 1, "the restarted player was not taken for a spectator: %q", rp.p[0].spectators)
	require.Equal(t, transport.Peer("right again"), rp.p[0].peer)
	require.Empty(t, rp.p[0].rj.held)
}

// TestRejoinScreen: while it catches up, a player coming back sees its
// progress, not the court (the state flies through the replay); once it
// plays, the court and the note are back.
func TestRejoinScreen(t *testing.T) {
	v, sc := simView(t, 1)
	s := NewState(1)
	v.draw(&s, hud{Rejoining: "rejoining: frame 1200 of ~2300"})
	text := strings.Join(screenText(sc), "\n")
	require.Contains(t, text, "pong: rejoining: frame 1200 of ~2300")
	require.NotContains(t, text, "█", "no paddles")
	require.NotContains(t, text, "─", "no court")
	v.draw(&s, hud{Note: "rejoined at frame 2300: replayed 2298 frames in 1.1s"})
	text = strings.Join(screenText(sc), "\n")
	require.Contains(t, text, "█")
	require.Contains(t, text, "rejoined at frame 2300")
}
