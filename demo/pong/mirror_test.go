package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		// This test binary was started as the demo itself (main_test.go).
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	goleak.VerifyTestMain(closingBrowser{m})
}

// closingBrowser runs the tests, then closes the browser they shared (if
// a browser test started one), before goleak looks for leaks.
type closingBrowser struct{ m *testing.M }

func (c closingBrowser) Run() int {
	defer closeBrowserEnv()
	return c.m.Run()
}

// mirror is two sides of a match in one process, over the local network on
// a fake clock.
type mirror struct {
	clock *local.Clock
	net   *local.Network
	a, b  *netMatch
	next  rollnet.Frame // the next frame agree compares
}

func newMirror(t *testing.T, seed uint64, link local.Link, delay int) *mirror {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir()) // where a desync's state files go (record.go)
	clock := local.NewClock(time.Unix(1_700_000_000, 0))
	nw, err := local.NewNetwork(local.Config{Seed: seed, Now: clock.Now, Link: link})
	require.NoError(t, err)
	ea, err := nw.Endpoint("left")
	require.NoError(t, err)
	eb, err := nw.Endpoint("right")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ea.Close(); _ = eb.Close() })
	o := options{delay: delay, fps: 60, seed: uint32(seed)}
	ra := rand.New(rand.NewPCG(seed, 1))
	rb := rand.New(rand.NewPCG(seed, 2))
	a, err := newP2PMatch(ea, "right", o, clock.Now, ra.Uint64)
	require.NoError(t, err)
	b, err := newP2PMatch(eb, "left", o, clock.Now, rb.Uint64)
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	m := &mirror{clock: clock, net: nw, a: a, b: b}
	seat(t, clock, a, b)
	return m
}

// newP2PMatch is a player's match over tr (a local endpoint), greeting
// peer, on the clock now with handshake nonces from nonce: its seat is
// where its endpoint's name sorts.
func newP2PMatch(tr transport.Transport, peer transport.Peer, o options, now func() time.Time, nonce func() uint64) (*netMatch, error) {
	cfg := netConfig(o)
	cfg.Signal, cfg.Transport, cfg.Peers, cfg.Now = "", tr, []transport.Peer{peer}, now
	cfg.Tuning.Net.Tuning.Rand = nonce
	nm, err := netplay.Join[State, Input](cfg, simulate)
	if err != nil {
		return nil, err
	}
	return newNetMatch(nm, o, now)
}

// p2p is a player's session, nil before it is seated.
func (m *netMatch) p2p() *p2p.Session[State, Input] { return p2pOf(m.nm) }

// away reports whether the other player is away.
func (m *netMatch) away() bool { return m.st.Away != "" }

// opponent is the other player's peer.
func (m *netMatch) opponent() transport.Peer { return m.nm.Peer(1 - m.Side()) }

// rejoinedAt is the frame this player came back at, 0 before.
func (m *netMatch) rejoinedAt() rollnet.Frame {
	for _, n := range m.nm.News() {
		var f rollnet.Frame
		if _, err := fmt.Sscanf(n, "rejoined at frame %d:", &f); err == nil {
			return f
		}
	}
	return 0
}

// newsWith is the news lines holding s.
func newsWith(news []string, s string) []string {
	var out []string
	for _, n := range news {
		if strings.Contains(n, s) {
			out = append(out, n)
		}
	}
	return out
}

// seat ticks ms (a clock's frame apart) until every one is seated.
func seat(t *testing.T, clock interface{ Advance(time.Duration) }, ms ...*netMatch) {
	t.Helper()
	for n := 0; ; n++ {
		done := true
		for _, m := range ms {
			done = done && m.p2p() != nil
		}
		if done {
			return
		}
		require.Less(t, n, 600, "the players are never seated")
		if clock != nil {
			clock.Advance(time.Second / 60)
		} else {
			time.Sleep(time.Second / 60)
		}
		for _, m := range ms {
			require.NoError(t, m.Tick(0))
		}
	}
}

// tick advances the clock by one frame time and ticks both sides with
// their bots.
func (m *mirror) tick(t *testing.T) {
	t.Helper()
	m.clock.Advance(time.Second / 60)
	require.NoError(t, m.a.Tick(Bot(m.a.State(), 0)))
	require.NoError(t, m.b.Tick(Bot(m.b.State(), 1)))
}

// agree compares the two sides' committed states, checksum and bytes, at
// every frame from m.next up to the newest frame both have confirmed and
// simulated. A frame whose state is awaiting a pending rollback's
// re-simulation is compared on a later tick; one that left a side's window
// uncompared fails the test.
func (m *mirror) agree(t *testing.T) {
	t.Helper()
	to := min(m.a.p2p().ConfirmedFrame(), m.b.p2p().ConfirmedFrame(), m.a.p2p().Frame()-1, m.b.p2p().Frame()-1)
	for ; m.next <= to; m.next++ {
		f := m.next
		ca, errA := m.a.p2p().ChecksumAt(f)
		cb, errB := m.b.p2p().ChecksumAt(f)
		if errA != nil || errB != nil {
			oldest := max(m.a.p2p().Frame(), m.b.p2p().Frame()) - capacity + 1
			require.GreaterOrEqual(t, f, oldest, "frame %d left the window uncompared: %v, %v", f, errA, errB)
			return // a rollback is pending on a side: next tick
		}
		require.Equal(t, ca, cb, "checksums differ at frame %d", f)
		sa, err := m.a.p2p().StateAt(f)
		require.NoError(t, err)
		sb, err := m.b.p2p().StateAt(f)
		require.NoError(t, err)
		require.Equal(t, *sa, *sb, "states differ at frame %d", f)
	}
}

// TestMirror is the seed's mirror proof: two sessions over an impaired
// local network play 3,600 frames (a minute at 60 fps) and agree on every
// confirmed frame throughout.
func TestMirror(t *testing.T) {
	links := []struct {
		name string
		link local.Link
	}{
		{"50ms±10ms 2% loss, dup, reorder", local.Link{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02, Duplicate: 0.02, Reorder: 0.02}},
		{"100ms±15ms 5% loss", local.Link{Latency: 100 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.05}},
	}
	for i, tc := range links {
		t.Run(tc.name, func(t *testing.T) {
			m := newMirror(t, uint64(i+1), tc.link, 2)
			for tick := 0; m.a.p2p().Frame() < 3600 || m.b.p2p().Frame() < 3600; tick++ {
				require.Less(t, tick, 2*3600, "the match does not advance")
				m.tick(t)
				m.agree(t)
			}
			require.Greater(t, m.next, rollnet.Frame(3500), "every frame compared up to here")
			for _, side := range []*netMatch{m.a, m.b} {
				r := side.Report()
				t.Logf("%s: %d frames, %d checksums compared by the session, %d rollbacks (deepest %d), score %v",
					r.Role, r.Frames, r.Compared, r.Rollbacks, r.Deepest, r.Score)
				require.Zero(t, r.Desyncs)
				require.Empty(t, r.Err)
				require.Greater(t, r.Compared, 500, "confirmed frames compared by the session (one in six of 3,600)")
			}
			// The impairment made the sides predict, and predict wrong.
			require.Positive(t, m.a.p2p().Stats().Rollbacks+m.b.p2p().Stats().Rollbacks)
			// And the game was played: points were scored.
			s := m.a.State()
			require.Positive(t, int(s.Score[0])+int(s.Score[1])+int(s.Wins[0])+int(s.Wins[1]))
		})
	}
}

// TestMirrorCleanLinkNoRollbacks: with the input delay covering the one-way
// latency on a jitter-free link, nothing is ever predicted wrong.
func TestMirrorCleanLinkNoRollbacks(t *testing.T) {
	m := newMirror(t, 9, local.Link{Latency: 20 * time.Millisecond}, 3)
	for m.a.p2p().Frame() < 600 || m.b.p2p().Frame() < 600 {
		m.tick(t)
		m.agree(t)
	}
	require.Zero(t, m.a.p2p().Stats().Rollbacks)
	require.Zero(t, m.b.p2p().Stats().Rollbacks)
	require.Greater(t, m.next, rollnet.Frame(590))
}

// TestMirrorDesyncIsReported: a side whose state is corrupted is caught by
// the session's checksum exchange (its DesyncDetected event and its
// counts), shown on screen, and the report's status is a desync.
func TestMirrorDesyncIsReported(t *testing.T) {
	m := newMirror(t, 3, local.Link{Latency: 30 * time.Millisecond}, 2)
	for m.a.p2p().Frame() < 120 {
		m.tick(t)
	}
	m.b.State().Score[1] += 3 // a cosmic ray on one side only
	for range 120 {
		m.tick(t)
	}
	for _, side := range []*netMatch{m.a, m.b} {
		h := side.HUD()
		require.Contains(t, h.Desync, "frame ")
		require.Less(t, h.Agreed, h.Compared)
		r := side.Report()
		require.GreaterOrEqual(t, r.First, int32(120))
		require.Positive(t, r.Desyncs)
		require.Equal(t, exitDesync, r.status())
	}
}

// TestTickAllocs: a frame of the demo's match (both sides' input, the
// P2P session, the local network) allocates nothing at
// steady state, rollbacks included.
func TestTickAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	m := newMirror(t, 5, local.Link{Latency: 40 * time.Millisecond, Jitter: 8 * time.Millisecond, Loss: 0.01}, 2)
	for range 600 {
		m.tick(t)
	}
	before := m.a.p2p().Stats().Rollbacks + m.b.p2p().Stats().Rollbacks
	var err error
	allocs.RequireZero(t, 600, func() { // the ticks alone: require's t.Helper bookkeeping allocates now and then
		m.clock.Advance(time.Second / 60)
		err = errors.Join(err, m.a.Tick(Bot(m.a.State(), 0)), m.b.Tick(Bot(m.b.State(), 1)))
	})
	require.NoError(t, err)
	require.Greater(t, m.a.p2p().Stats().Rollbacks+m.b.p2p().Stats().Rollbacks, before, "rollbacks happened while measured")
}

// TestSpectatorJoinsRunningMatch: a peer that connects to the left player
// after frame 6000, long past the session's input history (256 frames), is
// added as a spectator, replays the match from frame 0 out of the left
// player's archive without drawing it, catches up, and agrees with it.
func TestSpectatorJoinsRunningMatch(t *testing.T) {
	m := newMirror(t, 7, local.Link{Latency: 20 * time.Millisecond, Jitter: 4 * time.Millisecond, Loss: 0.01}, 2)
	for m.a.p2p().Frame() < 6000 {
		m.tick(t)
	}
	ew, err := m.net.Endpoint("watcher")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ew.Close() })
	rw := rand.New(rand.NewPCG(7, 3))
	o := options{delay: 2, fps: 60, seed: 7}
	cfg := netConfig(o)
	cfg.Signal, cfg.Transport, cfg.Peers, cfg.Now = "", ew, []transport.Peer{"left"}, m.clock.Now
	cfg.Tuning.Net.Tuning.Rand = rw.Uint64
	nm, err := netplay.Watch[State, Input](cfg, simulate)
	require.NoError(t, err)
	w, err := newNetMatch(nm, o, m.clock.Now)
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	for n := 0; spectatorOf(nm) == nil; n++ {
		require.Less(t, n, 120, "the spectator never starts")
		m.tick(t)
		require.NoError(t, w.Tick(0))
	}
	ws := spectatorOf(nm)
	var progress []string // what the screen says while it catches up
	ran := 0              // ticks that advanced while not catching up
	for tick := 0; ws.Frame() < m.a.p2p().Frame()-30; tick++ {
		require.Less(t, tick, 120, "the spectator does not catch up (at frame %d of %d)", ws.Frame(), m.a.p2p().Frame())
		m.tick(t)
		before := ws.Frame()
		require.NoError(t, w.Tick(0))
		if w.catchingUp() {
			progress = append(progress, w.HUD().Progress)
		} else if ws.Frame() > before {
			ran++
		}
	}
	// The host feeds it in bulk and it fast-forwards: its screen counts
	// down the frames to go instead of drawing them, for a few ticks.
	var left []int
	for _, p := range progress {
		var n int
		_, err := fmt.Sscanf(p, "catching up with the host: %d frames to go", &n)
		require.NoError(t, err, "%q", progress)
		left = append(left, n)
	}
	t.Logf("catching up, ticks: %d, progress %q", len(left), progress)
	require.NotEmpty(t, left)
	require.Greater(t, left[0], 500, "%q", progress)
	require.Less(t, len(left), 30, "%q", progress)
	require.Less(t, ran, 10, "drawn frames before it caught up")
	for range 120 { // caught up: its checksums meet the host's still held
		m.tick(t)
		require.NoError(t, w.Tick(0))
	}
	require.Regexp(t, `^(\d+ frames|1 frame) behind the host$`, w.HUD().Progress)
	rh := m.a.Report()
	require.Len(t, rh.News, 1)
	require.Contains(t, rh.News[0], "spectator player joined at frame 6")
	r := w.Report()
	t.Logf("spectator: %d frames, %d checksums compared with the host; host: %s; %q", r.Frames, r.Compared, rh.News[0], r.Extra)
	require.Len(t, r.News, 1)
	require.Regexp(t, `^caught up with the host: \d{4} frames fast-forwarded \(not drawn\), live 0\.\d\d s after joining$`, r.News[0])
	require.Empty(t, r.Err)
	require.Zero(t, r.Desyncs)
	require.Greater(t, r.Compared, 20)
	require.Equal(t, r.Compared, int(ws.PeerStats().ChecksumsAgreed))

	// The spectator leaves: the players play on (m.tick fails on any
	// error), and the left one says so.
	var log strings.Builder
	m.a.out = &log
	require.NoError(t, w.Close())
	for tick := 0; !strings.Contains(log.String(), "spectator player left"); tick++ {
		require.Less(t, tick, 1200, "the spectator's leaving is never noticed")
		m.tick(t)
	}
	for range 60 {
		m.tick(t)
	}
	// The report says when it joined and when it left.
	rh = m.a.Report()
	require.Len(t, rh.News, 2, "%q", rh.News)
	require.Contains(t, rh.News[1], "spectator player left at frame ")
}

// TestOpponentLeavingIsExplained: a match whose opponent leaves says how
// it left, on the screen and in the report, with its own exit status: it
// quit (its session's notice, as q, Ctrl-C or SIGTERM send), or it
// vanished (SIGKILL, a cut cable) and was declared disconnected after the
// silence the session allows.
func TestOpponentLeavingIsExplained(t *testing.T) {
	for _, tc := range []struct {
		name  string
		leave func(m *mirror)
		want  string
	}{
		{"quit", func(m *mirror) { require.NoError(t, m.b.p2p().Close()) }, "player quit at frame "},
		{"vanished", func(*mirror) {}, "player dropped at frame "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMirror(t, 11, local.Link{Latency: 20 * time.Millisecond}, 2)
			for m.a.p2p().Frame() < 120 {
				m.tick(t)
			}
			tc.leave(m)
			var err error
			counted := false // the screen counted the silence
			for tick := 0; err == nil; tick++ {
				require.Less(t, tick, 20*60, "the opponent's leaving is never noticed")
				m.clock.Advance(time.Second / 60)
				err = m.a.Tick(0) // b plays no more
				counted = counted || strings.Contains(m.a.HUD().Note, "player interrupted (")
			}
			require.Equal(t, tc.name == "vanished", counted)
			require.ErrorIs(t, err, errPeerLeft)
			require.Contains(t, m.a.HUD().Note, tc.want)
			r := m.a.Report()
			require.Contains(t, r.Left, tc.want)
			require.Empty(t, r.Err)
			require.Equal(t, exitOpponentLeft, r.status())
			var out strings.Builder
			r.print(&out)
			require.Contains(t, out.String(), "result              "+tc.want)
		})
	}
}
