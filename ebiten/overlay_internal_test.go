package rollebiten

import (
	"image"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// The overlay's boxes: the defaults (the top of the screen; the graph at
// the bottom right) and a game's own.
func TestOverlayBoxes(t *testing.T) {
	screen := image.Rect(0, 0, 320, 240)
	var o overlay
	o.init(60, true, true)
	st, gr := o.boxes(screen)
	require.Equal(t, screen, st, "the status: the whole width, from the top")
	require.Equal(t, image.Rect(320-120-4, 240-42-4, 316, 236), gr, "the graph: 120×42 at the bottom right")

	o.place(image.Rect(200, 10, 10, 60), image.Rect(0, 0, 60, 30))
	st, gr = o.boxes(screen)
	require.Equal(t, image.Rect(10, 10, 200, 60), st, "a game's box, made canonical")
	require.Equal(t, image.Rect(0, 0, 60, 30), gr)
}

// wrap fits the status to its box's width.
func TestWrap(t *testing.T) {
	lines := wrap(nil, "interrupted: bob not heard from, declared gone in 4.5s", 20)
	for _, l := range lines {
		require.LessOrEqual(t, len(l), 20, "%q", l)
	}
	require.Equal(t, "interrupted: bob not", lines[0])
}

// The status says who every peer waits for (netplay Config.Absence),
// where and for how long, and a forfeit; it formats again only when that
// changes.
func TestOverlayAbsence(t *testing.T) {
	var o overlay
	o.init(60, true, true)
	st := netplay.Status{Phase: netplay.Running, Frame: 300, InputDelay: 2}
	require.False(t, o.text(&st, 320), "a running match says nothing")
	st.Waiting, st.Awaiting, st.AwaitedAt, st.AwaitedFor = "bob", "bob", 300, 3*time.Second+time.Second/3
	require.True(t, o.text(&st, 320))
	require.Contains(t, strings.Join(o.lines, " "), "waiting at frame 300 for bob (3s)")
	first := &o.lines[0]
	st.AwaitedFor += time.Second / 3
	require.True(t, o.text(&st, 320))
	require.Same(t, first, &o.lines[0], "the same second: not formatted again")
	require.Equal(t, 0.0, testing.AllocsPerRun(10, func() { o.text(&st, 320) }))
	st.AwaitedFor += time.Second
	o.text(&st, 320)
	require.Equal(t, "running, waiting at frame 300 for bob (5s)", strings.Join(o.lines, " "))

	st = netplay.Status{Phase: netplay.Ended, Ended: netplay.EndForfeit, Away: "bob"}
	require.True(t, o.text(&st, 320))
	require.Contains(t, strings.Join(o.lines, " "), "ended: a player forfeited by leaving (bob)")
}

// A change of the input delay (netplay DelayBounds.Follow) shows for
// delayShow seconds after its last step, a shrink's steps as one change;
// it formats only when it changes.
// A desync repaired shows while netplay's Status.Repaired says it, and
// then the overlay is quiet again.
func TestOverlayRepaired(t *testing.T) {
	var o overlay
	o.init(60, true, true)
	st := netplay.Status{Phase: netplay.Running, Frame: 300, InputDelay: 2}
	require.False(t, o.text(&st, 320))
	st.Repaired = "desync at frame 200 repaired from seat 0 (alice) in 150 ms; World.X[0]: 3 here, 4 at peer a"
	require.True(t, o.text(&st, 320))
	require.Contains(t, strings.Join(o.lines, " "), "desync at frame 200 repaired from seat 0 (alice) in 150 ms")
	require.Equal(t, 0.0, testing.AllocsPerRun(10, func() { o.text(&st, 320) }))
	st.Repaired = ""
	require.False(t, o.text(&st, 320), "quiet again")
}

func TestOverlayDelayChanged(t *testing.T) {
	var o overlay
	o.init(60, true, true)
	st := netplay.Status{Phase: netplay.Running, Frame: 300, InputDelay: 2}
	o.sample(&st)
	require.False(t, o.text(&st, 320), "a running match says nothing")
	st.InputDelay = 10
	o.sample(&st)
	require.True(t, o.text(&st, 320))
	require.Equal(t, "input delay 2 -> 10 frames (following the network)", strings.Join(o.lines, " "))
	require.Equal(t, 0.0, testing.AllocsPerRun(10, func() { o.sample(&st); o.text(&st, 320) }))
	for range delayShow * 60 {
		o.sample(&st)
	}
	require.False(t, o.text(&st, 320), "shown for delayShow seconds")
	for _, d := range []int{9, 8, 7} { // a shrink, a step every two ticks
		st.InputDelay = d
		o.sample(&st)
		o.sample(&st)
	}
	require.True(t, o.text(&st, 320))
	require.Equal(t, "input delay 10 -> 7 frames (following the network)", strings.Join(o.lines, " "))
	st.Interrupted = "bob"
	require.True(t, o.text(&st, 320))
	require.Contains(t, strings.Join(o.lines, " "), "; input delay 10 -> 7 frames")
}

// Run's signal quits the game: the match closed, Update ending the game,
// and Run reporting ErrInterrupted.
func TestSignalQuits(t *testing.T) {
	n, err := local.NewNetwork(local.Config{Seed: 1})
	require.NoError(t, err)
	ep, err := n.Endpoint("a")
	require.NoError(t, err)
	g, err := New(Config[int, uint8]{
		Match:    netplay.Config{Transport: ep, Peers: []transport.Peer{"b"}, Players: 2},
		Simulate: func(*int, []uint8, rollnet.Frame) {}, Draw: func(*ebiten.Image, *View[int]) {},
	})
	require.NoError(t, err)
	defer g.Close()
	g.sig = make(chan os.Signal, 1)
	require.NoError(t, g.Update(), "no signal: the game goes on")
	g.sig <- os.Interrupt
	require.ErrorIs(t, g.Update(), ebiten.Termination)
	require.True(t, g.signaled && g.Quitting())
	require.ErrorIs(t, g.Match().Close(), nil, "the match is closed already")
}

// A player alone in its room past Match.Timeout is asked, not closed:
// the match waits on while the overlay asks, W keeps waiting (the other
// player comes and the match runs), Esc ends the game with netplay's
// ErrTimeout; Config.KeepWaiting waits on without asking.
func TestLobbyTimeoutAsks(t *testing.T) {
	pressed := map[ebiten.Key]bool{}
	keyPressed = func(k ebiten.Key) bool { return pressed[k] }
	defer func() { keyPressed = inpututil.IsKeyJustPressed }()
	clock := local.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	n, err := local.NewNetwork(local.Config{Seed: 1, Now: clock.Now})
	require.NoError(t, err)
	game := func(name, peer string, keep bool) *Game[int32, uint8] {
		ep, err := n.Endpoint(name)
		require.NoError(t, err)
		g, err := New(Config[int32, uint8]{
			Match:    netplay.Config{Transport: ep, Peers: []transport.Peer{transport.Peer(peer)}, Players: 2, Now: clock.Now, Timeout: time.Second},
			Simulate: func(*int32, []uint8, rollnet.Frame) {}, Draw: func(*ebiten.Image, *View[int32]) {},
			KeepWaiting: keep,
		})
		require.NoError(t, err)
		t.Cleanup(func() { _ = g.Close() })
		return g
	}
	tick := func(gs ...*Game[int32, uint8]) {
		clock.Advance(time.Second / 60)
		for _, g := range gs {
			require.NoError(t, g.Update())
		}
	}
	a := game("a", "b", false)
	for range 2 * 60 {
		tick(a)
	}
	require.True(t, a.Asking(), "the overlay asks")
	require.Contains(t, a.askLine, "no one joined in 1s: press W to keep waiting, Esc to quit")
	screen := ebiten.NewImage(320, 240)
	a.Draw(screen)
	for range 3 * 60 {
		tick(a) // the match waits on while it asks
	}
	pressed[ebiten.KeyW] = true
	tick(a)
	pressed[ebiten.KeyW] = false
	require.False(t, a.Asking(), "W: keep waiting")
	b := game("b", "a", false)
	for range 2 * 60 {
		tick(a, b)
	}
	require.Equal(t, netplay.Running, a.Status().Phase)
	require.False(t, a.Asking())

	c := game("c", "d", false)
	for range 2 * 60 {
		tick(c)
	}
	require.True(t, c.Asking())
	pressed[ebiten.KeyEscape] = true
	require.ErrorIs(t, c.Update(), netplay.ErrTimeout, "Esc: the game ends as it did")
	pressed[ebiten.KeyEscape] = false

	e := game("e", "f", true)
	for range 5 * 60 {
		tick(e)
	}
	require.False(t, e.Asking(), "KeepWaiting: no question")
	require.Equal(t, netplay.Connecting, e.Status().Phase)
}
