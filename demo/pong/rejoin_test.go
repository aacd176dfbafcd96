package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
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
		rp.opts[side] = options{delay: 2, fps: 60, seed: 99, room: "friday", name: name, timeout: 20 * time.Second, rejoin: filepath.Join(dir, sideName(side)+".rejoin")}
	}
	rp.p[0] = rp.start(t, 0)
	rp.p[1] = rp.start(t, 1)
	seat(t, clock, rp.p[0], rp.p[1])
	t.Cleanup(func() {
		for _, c := range rp.closer {
			c()
		}
	})
	return rp
}

// start is side's player at its usual address; with its FILE there, it
// rejoins.
func (rp *rejoinPair) start(t *testing.T, side int) *netMatch {
	return rp.startAt(t, sideName(side), side)
}

func (rp *rejoinPair) startAt(t *testing.T, addr string, side int) *netMatch {
	t.Helper()
	if rp.dead != nil && string(rp.dead.nm.Transport().Local()) == addr {
		require.NoError(t, rp.dead.nm.Transport().Close())
	}
	e, err := rp.net.Endpoint(addr)
	require.NoError(t, err)
	m, err := newP2PMatch(e, transport.Peer(sideName(1-side)), rp.opts[side], rp.clock.Now, rand.New(rand.NewPCG(uint64(side), uint64(time.Now().UnixNano()))).Uint64)
	require.NoError(t, err)
	rp.closer = append(rp.closer, func() { _ = e.Close() })
	return m
}

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
	for n := 0; rp.p[0].p2p().Frame() < f || rp.p[1].p2p().Frame() < f; n++ {
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
	for n := 0; !rp.p[1-side].away(); n++ {
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
			who := rp.opts[dies].name
			rp.drop(t, dies)
			rp.tick(t)
			require.Equal(t, "running, "+who+" away (1m0s to come back)", rp.p[lives].HUD().Note)
			for range 181 { // three seconds later
				require.NoError(t, rp.tick(t)[lives], "the other player plays on")
			}
			require.Equal(t, "running, "+who+" away (57s to come back)", rp.p[lives].HUD().Note)

			tok, ok, err := netplay.FileStore(rp.opts[dies].rejoin).Load("friday")
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, dies, tok.Seat)
			rp.p[dies] = rp.startAt(t, tc.addr, dies)
			var progress []string
			for n := 0; rp.p[dies].rejoinedAt() == 0; n++ {
				require.Less(t, n, 600, "never rejoined")
				if h := rp.p[dies].HUD(); h.Rejoining != "" {
					progress = append(progress, h.Rejoining)
				}
				errs := rp.tick(t)
				require.NoError(t, errs[0])
				require.NoError(t, errs[1])
			}
			r := rp.p[dies].rejoinedAt()
			rp.tick(t)
			require.Equal(t, fmt.Sprintf("rejoined at frame %d: replayed %d frames in %v", r, rp.p[dies].p2p().RejoinStats().Replayed, rp.p[dies].p2p().RejoinStats().CatchUp.Round(time.Millisecond)),
				rp.p[dies].HUD().Note, "its screen says so once it plays")
			t.Logf("rejoined at frame %d; progress from %q to %q", r, progress[0], progress[len(progress)-1])
			require.Contains(t, strings.Join(progress, "\n"), "rejoining: frame ")
			// Every confirmed frame from R on agrees, state by state.
			agree := &mirror{a: rp.p[0], b: rp.p[1], next: r}
			for n := 0; rp.p[0].p2p().Frame() < r+600 || rp.p[1].p2p().Frame() < r+600; n++ {
				require.Less(t, n, 1200, "the match does not advance")
				errs := rp.tick(t)
				require.NoError(t, errs[0])
				require.NoError(t, errs[1])
				agree.agree(t)
			}
			require.Greater(t, agree.next, r+500, "every frame compared from R on")
			require.Contains(t, rp.p[lives].HUD().Note, who+" rejoined at frame ")
			require.Equal(t, transport.Peer(tc.addr), rp.p[lives].opponent(), "the opponent is where it came back from")
			back2 := rp.p[dies].Report()
			require.Zero(t, back2.Desyncs)
			require.Positive(t, back2.Compared, "the session compared checksums after the rejoin")
			require.Contains(t, newsWith(back2.News, "rejoined")[0], fmt.Sprintf("rejoined at frame %d: replayed ", r))
			lr := rp.p[lives].Report()
			require.Zero(t, lr.Desyncs)
			require.Empty(t, lr.Left)
			told := newsWith(lr.News, who)
			require.Len(t, told, 3, "%q", told)
			require.Contains(t, told[0], who+" dropped at frame ")
			require.Contains(t, told[0], ": may rejoin for 60 s")
			require.Contains(t, told[1], who+" is rejoining at frame ")
			require.Equal(t, told[2], fmt.Sprintf("%s rejoined at frame %d", who, r))
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
	from := rp.p[0].p2p().Frame()
	var err error
	for n := 0; err == nil; n++ {
		require.Less(t, n, int(rejoinWindow/time.Second)*60+60, "the window never ended")
		err = rp.tick(t)[0]
	}
	require.ErrorIs(t, err, errPeerLeft)
	require.Greater(t, rp.p[0].p2p().Frame(), from+55*60, "the left player played on through the window")
	r := rp.p[0].Report()
	require.Equal(t, "bob did not rejoin within 1m0s", r.Left)
	require.Contains(t, r.News[0], "bob dropped at frame ")
	require.Equal(t, exitOpponentLeft, r.status())
}

// TestRejoinRefused: a right player coming back with a token that is not
// its own (another match's FILE) is refused: the report is the one line
// saying why, and the status is exitRejoinRefused. The left one plays on.
func TestRejoinRefused(t *testing.T) {
	rp := newRejoinPair(t)
	rp.playTo(t, 120)
	rp.drop(t, 1)
	store := netplay.FileStore(rp.opts[1].rejoin)
	tok, _, err := store.Load("friday")
	require.NoError(t, err)
	tok.Rejoin.Secret[0] ^= 0xff // another match's
	require.NoError(t, store.Save(tok))
	rp.p[1] = rp.start(t, 1)
	var errs [2]error
	for n := 0; errs[1] == nil; n++ {
		require.Less(t, n, 600, "never refused")
		errs = rp.tick(t)
		require.NoError(t, errs[0])
	}
	require.ErrorIs(t, errs[1], netplay.ErrRejoinRefused)
	r := rp.p[1].Report()
	require.Equal(t, exitRejoinRefused, r.status())
	var out strings.Builder
	r.print(&out)
	require.Equal(t, "pong: rejoin refused by alice: wrong match id or secret (not the player who left) ("+rp.opts[1].rejoin+" removed)\n", out.String())
	require.True(t, rp.p[0].away(), "the left player still waits for the real one")
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
	var err error
	tick := func() { // no require or t.Helper inside: their bookkeeping allocates now and then
		rp.clock.Advance(time.Second / 60)
		for side, m := range rp.p {
			if m != nil {
				err = errors.Join(err, m.Tick(Bot(m.State(), side)))
			}
		}
	}
	allocs.RequireZero(t, 600, tick)
	require.NoError(t, err)
	require.Contains(t, out.String(), "pong: checksum frame 600 ")

	rp.drop(t, 1)
	rp.p[1] = rp.startAt(t, "right again", 1)
	rp.p[1].out = &out
	for n := 0; rp.p[1].rejoinedAt() == 0 || rp.p[0].p2p().Frame() < rp.p[1].rejoinedAt()+300; n++ {
		require.Less(t, n, 1200, "never rejoined")
		tick()
	}
	require.NoError(t, err)
	allocs.RequireZero(t, 600, tick)
	require.NoError(t, err)
}

// TestRejoinRestartAtOnce: the right player's process restarts at once,
// from a new address, and greets the left one before the old one is even
// silent; a spectator connects meanwhile. The left player tells them
// apart by their hellos (a player coming back, a spectator): the
// restarted one rejoins its seat and the spectator is fed, neither taken
// for the other.
func TestRejoinRestartAtOnce(t *testing.T) {
	rp := newRejoinPair(t)
	rp.playTo(t, 300)
	ew, err := rp.net.Endpoint("watcher")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ew.Close() })
	cfg := netConfig(options{delay: 2, fps: 60, seed: 99, room: "friday", name: "eve", timeout: 20 * time.Second})
	cfg.Signal, cfg.Transport, cfg.Peers, cfg.Now = "", ew, []transport.Peer{"left"}, rp.clock.Now
	w, err := netplay.Watch[State, Input](cfg, simulate)
	require.NoError(t, err)
	_, err = newNetMatch(w, options{seed: 99, fps: 60}, rp.clock.Now) // its state before frame 0
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	rp.dead, rp.p[1] = rp.p[1], nil
	rp.p[1] = rp.startAt(t, "right again", 1)
	for n := 0; rp.p[1].rejoinedAt() == 0; n++ {
		require.Less(t, n, 900, "never rejoined")
		errs := rp.tick(t)
		require.NoError(t, errs[0])
		require.NoError(t, errs[1])
		_, err := w.AdvanceFrame(0)
		require.NoError(t, err)
	}
	rp.playTo(t, rp.p[1].rejoinedAt()+120)
	require.NotNil(t, spectatorOf(w), "the spectator is fed")
	spectators := newsWith(rp.p[0].nm.News(), "spectator ")
	require.Len(t, spectators, 1, "the restarted player was not taken for a spectator: %q", spectators)
	require.Equal(t, transport.Peer("right again"), rp.p[0].opponent())
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

// TestQuitterIsNotAwaited: a -rejoin player who quits (q: its FILE is
// deleted, the others told) is for the other one a player who quit, not
// one that may rejoin: no "may rejoin for 60 s", no countdown.
func TestQuitterIsNotAwaited(t *testing.T) {
	rp := newRejoinPair(t)
	rp.playTo(t, 120)
	require.NoError(t, rp.p[1].Close())
	rp.p[1] = nil
	_, err := os.Stat(rp.opts[1].rejoin)
	require.ErrorIs(t, err, os.ErrNotExist, "a player who quits deletes its token")
	var notes []string
	for n := 0; n < 600; n++ {
		if rp.tick(t)[0] != nil {
			break
		}
		notes = append(notes, rp.p[0].HUD().Note)
	}
	r := rp.p[0].Report()
	told := newsWith(r.News, "bob")
	require.NotEmpty(t, told)
	require.Regexp(t, `^bob quit at frame \d+$`, told[0])
	for _, n := range notes {
		require.NotContains(t, n, "to come back", "a quitter is not counted down")
	}
}
