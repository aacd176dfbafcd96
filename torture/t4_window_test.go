package torture

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
)

// T4: window edges. For every capacity up to 32 and every input delay
// (capacity 64 at its edge delays), with several prediction limits, a remote player lags by the whole prediction
// window; then inputs exactly at, one inside and one outside both edges
// of the accept window: [Frame()-W, Frame()+InputDelay+MaxPrediction],
// W = Capacity-1-InputDelay. Below is stale (ignored, counted, even when
// it conflicts); the oldest frame is accepted and rolls back the whole
// window; above is ErrOutOfWindow with nothing stored; the newest is
// accepted. The game then runs on and must agree with the oracle.
func TestT4WindowEdges(t *testing.T) {
	cases := 0
	for _, capacity := range []int{2, 4, 8, 16, 32, 64} {
		for delay := range capacity - 1 {
			if capacity == 64 && delay > 2 && delay < 60 && delay != 31 {
				continue // the largest ring at its edge delays only
			}
			w := capacity - 1 - delay
			for _, maxPred := range []int{0, 1, (w + 1) / 2, w} {
				if maxPred > w {
					continue
				}
				g := coreGame{Players: 2, Capacity: capacity, Delay: delay, MaxPred: maxPred}
				t4Edges(t, g, 3*scaled(1))
				cases++
				if t.Failed() {
					return
				}
			}
		}
	}
	t.Logf("%d window configurations", cases)
}

func t4Edges(t *testing.T, g coreGame, rounds int) {
	w, mp := g.Window(), g.Prediction()
	frames := g.Delay + 4*(g.Capacity+mp) + 16 + rounds*(g.Delay+2*mp+w+6)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%+v W=%d mp=%d: %s", g, w, mp, fmt.Sprintf(format, args...))
	}
	// Player 1 alternates 1, 2, 1, ... so every late input contradicts
	// its prediction (the previous frame's input).
	script := make([][]uint16, frames)
	for f := range script {
		script[f] = []uint16{0, 0}
		if f >= g.Delay {
			script[f] = []uint16{uint16(f % 3), uint16(f%2 + 1)}
		}
	}
	want := coreOracle(coreWorld{}, script)
	s, err := session.New[coreWorld](coreConfig(g), coreSim)
	if err != nil {
		fail("%v", err)
	}
	local := func() {
		if f := int(s.Frame()) + g.Delay; f < frames {
			if err := s.AddLocalInput(0, script[f][0]); err != nil {
				fail("%v", err)
			}
		}
	}
	remote := func(f int) error {
		return s.AddRemoteInput(1, rollnet.Frame(f), script[f][1])
	}
	sent := g.Delay - 1 // player 1's inputs delivered up to here
	// Lag by the whole prediction window: deliver frame Frame()-mp just
	// before each Step, the latest that lets it run.
	nextEdge := 0 // after the inputs sent ahead in the last edge round
	for int(s.Frame()) < frames-g.Capacity-mp-2 {
		for sent < int(s.Frame())-mp {
			sent++
			if err := remote(sent); err != nil {
				fail("frame %d: %v", sent, err)
			}
		}
		local()
		if err := s.AdvanceFrame(); err != nil {
			fail("step %d: %v", s.Frame(), err)
		}
		if int(s.Frame()) < max(g.Delay+mp+2, w+2, nextEdge) || rounds == 0 {
			continue
		}
		// The edges, now.
		f := int(s.Frame())
		lo, hi := f-w, f+g.Delay+mp
		nextEdge = hi + mp + 2
		if got := int(s.ConfirmedFrame()); got != f-1-mp {
			fail("confirmed %d, want %d (lagging by the prediction window)", got, f-1-mp)
		}
		stale := s.Stats().StaleInputs
		if err := s.AddRemoteInput(1, rollnet.Frame(lo-1), 99); err != nil {
			fail("one below the window (conflicting): %v", err)
		}
		if s.Stats().StaleInputs != stale+1 || s.Stats().Desyncs != 0 {
			fail("one below the window not counted stale: %+v", s.Stats())
		}
		if err := s.AddRemoteInput(1, rollnet.Frame(hi+1), 1); !errors.Is(err, session.ErrOutOfWindow) {
			fail("one above the window: %v", err)
		}
		// hi+1 was not stored: giving it again once in the window is
		// not a conflict (checked when it is delivered below).
		if hi < frames {
			if err := remote(hi); err != nil {
				fail("the newest frame of the window: %v", err)
			}
		}
		if hi-1 < frames && hi-1 > sent {
			if err := remote(hi - 1); err != nil {
				fail("one inside the newest frame: %v", err)
			}
		}
		if mp == w {
			// The oldest frame of the window is unconfirmed: deliver it
			// (and one inside) and expect a rollback of the whole window.
			if lo != sent+1 {
				fail("oldest unconfirmed frame %d, window starts at %d", sent+1, lo)
			}
			sent++
			if err := remote(lo); err != nil {
				fail("the oldest frame of the window: %v", err)
			}
			sent++
			if err := remote(lo + 1); err != nil {
				fail("one inside the oldest frame: %v", err)
			}
			rb := s.Stats().Rollbacks
			local()
			if err := s.AdvanceFrame(); err != nil {
				fail("%v", err)
			}
			if s.Stats().Rollbacks != rb+1 || s.Stats().MaxRollbackDepth != w {
				fail("want a rollback of the whole window (%d frames): %+v", w, s.Stats())
			}
		}
		rounds--
	}
	if rounds > 0 {
		fail("%d edge rounds not run", rounds)
	}
	// Run on with everything delivered; every confirmed frame held must
	// agree with the oracle.
	for int(s.Frame()) < frames {
		for sent < min(int(s.Frame())+g.Delay, frames-1) {
			sent++
			if err := remote(sent); err != nil {
				fail("frame %d: %v", sent, err)
			}
		}
		local()
		if err := s.AdvanceFrame(); err != nil {
			fail("%v", err)
		}
	}
	for f := max(frames-g.Capacity, -1); f < frames; f++ {
		if sum, err := s.ChecksumAt(rollnet.Frame(f)); err != nil || sum != want[f+1] {
			fail("frame %d checksum %08x (%v), oracle %08x", f, sum, err, want[f+1])
		}
	}
	if s.Stats().Desyncs != 0 {
		fail("desyncs: %+v", s.Stats())
	}
}
