package rollebiten_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/stretchr/testify/require"

	rollebiten "github.com/rollnet/rollnet/ebiten"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
)

// hooked is a two-player P2P pair whose games set their state with Init.
func hooked(t *testing.T, init func(*World), onStop func(*rollebiten.Game[World, Buttons])) (l *lan, a, b *rollebiten.Game[World, Buttons]) {
	l = newLAN(link)
	mk := func(name, peer string) *rollebiten.Game[World, Buttons] {
		ep, err := l.net.Endpoint(name)
		require.NoError(t, err)
		g, err := rollebiten.New(rollebiten.Config[World, Buttons]{
			Match:    netplay.Config{Transport: ep, Peers: []transport.Peer{transport.Peer(peer)}, Now: l.clock.Now, Players: 2, Name: name, Room: "r"},
			Simulate: simulate, Draw: draw, Init: init, Input: sway(),
			Frames: 60, OnStop: onStop,
		})
		require.NoError(t, err)
		t.Cleanup(func() { _ = g.Close() })
		return g
	}
	return l, mk("a", "b"), mk("b", "a")
}

// Init sets the state before frame 0, on every peer, so Simulate starts
// from it and the peers agree.
func TestInitSetsTheFirstState(t *testing.T) {
	inits := 0
	l, a, b := hooked(t, func(w *World) {
		inits++
		w.X = [4]int32{100, 200, 300, 400}
	}, nil)
	for range 400 {
		require.NoError(t, a.Update())
		require.NoError(t, b.Update())
		l.clock.Advance(time.Second / 60)
	}
	require.True(t, a.Stopped() && b.Stopped())
	require.Equal(t, 2, inits, "Init once per peer")
	require.EqualValues(t, 60, a.View().Present.T, "frames simulated after Init")
	require.EqualValues(t, 300, a.View().Present.X[2], "a slot no player moves keeps Init's value")
	require.InDelta(t, 100, a.View().Present.X[0], 60, "player 0 moved from Init's 100")
	sa, errA := a.Match().ChecksumAt(50)
	sb, errB := b.Match().ChecksumAt(50)
	require.NoError(t, errA)
	require.NoError(t, errB)
	require.Equal(t, sa, sb, "both peers started from Init's state")
}

// Quit from OnStop leaves the match cleanly and ends the game: the next
// Update returns ebiten.Termination, and the other player reads "quit",
// not a drop after a silence.
func TestQuitLeavesCleanly(t *testing.T) {
	l, a, b := hooked(t, nil, func(g *rollebiten.Game[World, Buttons]) {
		if g.Match().Seat() == 0 {
			g.Quit()
			g.Quit() // twice is harmless
		}
	})
	var aErr error
	for range 400 {
		if aErr == nil {
			aErr = a.Update()
		}
		require.NoError(t, b.Update())
		l.clock.Advance(time.Second / 60)
		if aErr != nil && strings.Contains(strings.Join(b.Match().News(), "\n"), " quit at frame") {
			break
		}
	}
	require.ErrorIs(t, aErr, ebiten.Termination, "Update after Quit ends ebiten.RunGame")
	require.True(t, a.Quitting())
	require.ErrorIs(t, a.Update(), ebiten.Termination, "and keeps ending it")
	news := strings.Join(b.Match().News(), "\n")
	require.Contains(t, news, "a quit at frame", "the other player reads a quit")
	require.NotContains(t, news, "dropped")
}

// Figures hands the graph's numbers to a game's own HUD: none before the
// first Update, then the round trip and the frame advantage the Status
// has, the rollbacks over the last second.
func TestFigures(t *testing.T) {
	p := newPair(t, sway)
	_, ok := p.a.Figures(0)
	require.False(t, ok, "no figures before the first Update")
	p.until(t, 600, "frame 200", func() bool { return p.a.Status().Frame >= 200 })
	f, ok := p.a.Figures(0)
	require.True(t, ok)
	st := p.a.Status()
	require.Equal(t, st.RTT.Truncate(time.Millisecond), f.RTT)
	require.Positive(t, f.RTT)
	require.Equal(t, st.FrameAdvantage, f.FrameAdvantage)
	require.Positive(t, f.RollbacksPerSecond, "the sway mispredicts")
	require.Less(t, f.RollbacksPerSecond, st.Rollbacks, "a second's rollbacks, not the match's")
	_, ok = p.a.Figures(119)
	require.True(t, ok, "the graph keeps 120 ticks")
	_, ok = p.a.Figures(120)
	require.False(t, ok)
	_, ok = p.a.Figures(-1)
	require.False(t, ok)
}
