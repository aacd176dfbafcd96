package rollebiten_test

import (
	"testing"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	rollebiten "github.com/rollnet/rollnet/ebiten"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

var link = local.Link{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond}

// pair is two P2P games, ticked together.
type pair struct {
	l    *lan
	a, b *rollebiten.Game[World, Buttons]
}

func newPair(t testing.TB, in func() func() Buttons) *pair {
	l := newLAN(link)
	a, err := l.game("a", netplay.ModeP2P, 2, in(), "b")
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	b, err := l.game("b", netplay.ModeP2P, 2, in(), "a")
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return &pair{l: l, a: a, b: b}
}

func (p *pair) tick(t testing.TB) {
	if err := p.a.Update(); err != nil {
		t.Fatal(err)
	}
	if err := p.b.Update(); err != nil {
		t.Fatal(err)
	}
	p.l.clock.Advance(time.Second / 60)
}

func (p *pair) until(t testing.TB, n int, what string, cond func() bool) {
	t.Helper()
	for range n {
		if cond() {
			return
		}
		p.tick(t)
	}
	require.True(t, cond(), "after %d ticks: %s", n, what)
}

func TestP2PGamesAgreeAndRollBack(t *testing.T) {
	p := newPair(t, sway)
	p.until(t, 600, "frame 300", func() bool { return p.a.Status().Frame >= 300 && p.b.Status().Frame >= 300 })
	for f := int32(270); f < 290; f++ {
		sa, errA := p.a.Match().ChecksumAt(rollnet.Frame(f))
		sb, errB := p.b.Match().ChecksumAt(rollnet.Frame(f))
		require.NoError(t, errA, "frame %d confirmed on a", f)
		require.NoError(t, errB, "frame %d confirmed on b", f)
		require.Equal(t, sa, sb, "frame %d", f)
	}
	st := p.a.Status()
	require.Equal(t, netplay.Running, st.Phase)
	require.Positive(t, st.Rollbacks, "the sway mispredicts: rollbacks for the graph")
	require.Positive(t, st.RTT, "a round trip for the graph")
	require.Empty(t, st.Desync)
}

func TestFramesStopsTheMatch(t *testing.T) {
	l := newLAN(link)
	stops := 0
	mk := func(name, peer string) *rollebiten.Game[World, Buttons] {
		ep, err := l.net.Endpoint(name)
		require.NoError(t, err)
		g, err := rollebiten.New(rollebiten.Config[World, Buttons]{
			Match:    netplay.Config{Transport: ep, Peers: []transport.Peer{transport.Peer(peer)}, Now: l.clock.Now, Players: 2},
			Simulate: simulate, Draw: draw, Frames: 90,
			OnStop: func(g *rollebiten.Game[World, Buttons]) { stops++ },
		})
		require.NoError(t, err)
		t.Cleanup(func() { _ = g.Close() })
		return g
	}
	a, b := mk("a", "b"), mk("b", "a")
	for range 400 {
		require.NoError(t, a.Update())
		require.NoError(t, b.Update())
		l.clock.Advance(time.Second / 60)
	}
	require.True(t, a.Stopped() && b.Stopped())
	require.EqualValues(t, 90, a.Status().Frame, "no step after Frames")
	require.EqualValues(t, 90, b.Match().Frame())
	require.Equal(t, 2, stops, "OnStop once per game")
}

// An authoritative client's View: its present from its prediction, the
// others from the host's two states around the render time.
func TestClientViewHasPlayout(t *testing.T) {
	l := newLAN(link)
	h, err := l.game("h", netplay.ModeHost, 2, nil, "c")
	require.NoError(t, err)
	defer h.Close()
	c, err := l.game("c", netplay.ModeClient, 2, sway(), "h")
	require.NoError(t, err)
	defer c.Close()
	for range 600 {
		require.NoError(t, h.Update())
		require.NoError(t, c.Update())
		l.clock.Advance(time.Second / 60)
		if c.Status().Phase == netplay.Running && c.Status().Frame > 120 {
			break
		}
	}
	require.Equal(t, netplay.Running, c.Status().Phase)
	v := c.View()
	require.NotNil(t, v.Present)
	require.NotNil(t, v.A)
	require.NotNil(t, v.B)
	require.NotSame(t, v.Present, v.A, "the others are drawn from the host's states, not the prediction")
	require.GreaterOrEqual(t, v.Alpha, 0.0)
	require.LessOrEqual(t, v.Alpha, 1.0)
	require.Equal(t, 0, v.Seat)
	hv := h.View()
	require.Same(t, hv.Present, hv.A, "a host draws its state as is")
	require.Equal(t, -1, hv.Seat, "a dedicated host plays no slot")
}

// TestUpdateAllocs: once the match runs, an Update (the key map read, the
// AdvanceFrame, the graph's sample, the View) allocates nothing.
func TestUpdateAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("-race allocates")
	}
	keys := rollebiten.KeyMap[Buttons]{
		{Bits: Left, Keys: []ebiten.Key{ebiten.KeyArrowLeft, ebiten.KeyA}, Buttons: []ebiten.StandardGamepadButton{ebiten.StandardGamepadButtonLeftLeft}},
		{Bits: Right, Keys: []ebiten.Key{ebiten.KeyArrowRight, ebiten.KeyD}, Buttons: []ebiten.StandardGamepadButton{ebiten.StandardGamepadButtonLeftRight}},
	}
	p := newPair(t, sway)
	p.until(t, 600, "running", func() bool { return p.a.Status().Frame >= 200 })
	read := keys.Reader()
	// AllocsPerRun, not internal/allocs.Total: about one run in thirty
	// counted 2 allocations in 300 ticks from another goroutine of the
	// process; a per-frame allocation reads 1 or more here.
	n := testing.AllocsPerRun(300, func() {
		_ = read()
		p.tick(t)
		_ = p.a.View()
		_ = p.b.View()
	})
	require.Zero(t, n, "allocations per tick of two games")
	require.Positive(t, p.a.Status().Rollbacks, "the ticks measured rolled back")
}
