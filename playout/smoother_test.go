package playout_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/playout"
)

func TestSmootherConfig(t *testing.T) {
	for _, c := range []playout.SmootherConfig{{Step: -1}, {Decay: 1.5}, {Decay: -0.5}, {Decay: math.NaN()}} {
		_, err := playout.NewSmoother(c)
		require.ErrorIs(t, err, rollnet.ErrConfig, "%+v", c)
	}
}

// TestSmootherDecays: a correction leaves the drawn entity where it was,
// then the offset decays by the fraction per step, whatever the frame rate.
func TestSmootherDecays(t *testing.T) {
	s, err := playout.NewSmoother(playout.SmootherConfig{Decay: 0.5})
	require.NoError(t, err)
	truth := playout.Vec{10, 0, 0}
	drawn := s.Draw(truth)
	require.NoError(t, s.Correct(playout.Vec{4, -2, 0})) // the truth moved
	truth = playout.Vec{14, -2, 0}
	require.Equal(t, drawn, s.Draw(truth), "no pop on the frame of the correction")
	require.True(t, s.Active())

	s.Advance(playout.DefaultStep)
	requireVec(t, playout.Vec{-2, 1, 0}, s.Offset(), 1e-12)
	for range 2 { // two half steps: the same as one step
		s.Advance(playout.DefaultStep / 2)
	}
	requireVec(t, playout.Vec{-1, 0.5, 0}, s.Offset(), 1e-6)

	// A second correction before the first finished adds to what is left.
	require.NoError(t, s.Correct(playout.Vec{1, 0, 0}))
	requireVec(t, playout.Vec{-2, 0.5, 0}, s.Offset(), 1e-6)

	// Zero-length and negative frames keep it; a huge one clears it.
	off := s.Offset()
	s.Advance(0)
	s.Advance(-time.Second)
	require.Equal(t, off, s.Offset())
	s.Advance(time.Hour)
	require.False(t, s.Active())
	s.Advance(math.MaxInt64)
	require.Equal(t, playout.Vec{}, s.Offset())
}

func TestSmootherSnapAndRefusals(t *testing.T) {
	s, err := playout.NewSmoother(playout.SmootherConfig{})
	require.NoError(t, err)
	require.NoError(t, s.Correct(playout.Vec{100, 0, 0}))
	s.Snap() // a teleport: by cause, not by distance
	require.False(t, s.Active())
	require.ErrorIs(t, s.Correct(playout.Vec{math.NaN(), 0, 0}), playout.ErrNotFinite)
	require.ErrorIs(t, s.Correct(playout.Vec{0, math.Inf(-1), 0}), playout.ErrNotFinite)
	require.False(t, s.Active(), "a refused correction changes nothing")

	snap, err := playout.NewSmoother(playout.SmootherConfig{Decay: 1})
	require.NoError(t, err)
	require.NoError(t, snap.Correct(playout.Vec{1, 2, 3}))
	require.False(t, snap.Active(), "Decay 1 snaps every correction")
}

func requireVec(t *testing.T, want, got playout.Vec, delta float64) {
	t.Helper()
	require.InDeltaSlice(t, want[:], got[:], delta)
}

// TestSmootherHidesCorrections is rule 8 measured: an entity moving one
// unit a 60 Hz step, drawn at 144 Hz, corrected by 0.3 units every tenth of
// a second. Snapped, every correction is a hitch; through a Smoother, none.
func TestSmootherHidesCorrections(t *testing.T) {
	const draw = time.Second / 144
	run := func(smooth bool) (hitches int) {
		ts, err := playout.NewTimestep(playout.TimestepConfig{})
		require.NoError(t, err)
		s, err := playout.NewSmoother(playout.SmootherConfig{})
		require.NoError(t, err)
		prev, cur, last := -1.0, 0.0, 0.0 // moving from the start
		for frame := range 1440 {
			for range ts.Advance(draw) {
				prev, cur = cur, cur+1
				if int(ts.Steps())%6 == 0 { // a host state says we were off
					prev += 0.3
					cur += 0.3
					if smooth {
						require.NoError(t, s.Correct(playout.Vec{0.3}))
					}
				}
			}
			s.Advance(draw)
			x := s.Draw(playout.Vec{prev + (cur-prev)*ts.Alpha()})[0]
			if frame > 0 {
				if r := (x - last) / (60.0 / 144); r < 0.5 || r > 1.5 {
					hitches++
				}
			}
			last = x
		}
		return hitches
	}
	snapped, smoothed := run(false), run(true)
	t.Logf("corrections of 0.3 every 6 steps, 1440 frames at 144 Hz: snapped %d hitches, smoothed %d", snapped, smoothed)
	require.Positive(t, snapped)
	require.Zero(t, smoothed)
}
