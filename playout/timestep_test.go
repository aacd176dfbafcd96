package playout_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/playout"
)

func TestTimestepConfig(t *testing.T) {
	ts, err := playout.NewTimestep(playout.TimestepConfig{})
	require.NoError(t, err)
	require.Equal(t, playout.DefaultStep, ts.Step())
	require.Equal(t, 1.0, ts.Scale())
	for _, c := range []playout.TimestepConfig{
		{Step: -1}, {Step: time.Nanosecond}, {Step: 2 * time.Second},
		{MaxSteps: -1}, {MaxSteps: 1001},
		{MaxScale: -0.1}, {MaxScale: 0.6}, {MaxScale: math.NaN()},
	} {
		_, err := playout.NewTimestep(c)
		require.ErrorIs(t, err, rollnet.ErrConfig, "%+v", c)
	}
}

// TestTimestepSteps: whole steps out, the remainder kept as alpha.
func TestTimestepSteps(t *testing.T) {
	ts, err := playout.NewTimestep(playout.TimestepConfig{Step: 10 * time.Millisecond})
	require.NoError(t, err)
	require.Equal(t, 0, ts.Advance(4*time.Millisecond))
	require.InDelta(t, 0.4, ts.Alpha(), 1e-12)
	require.Equal(t, 1, ts.Advance(8*time.Millisecond))
	require.InDelta(t, 0.2, ts.Alpha(), 1e-12)
	require.Equal(t, 3, ts.Advance(30*time.Millisecond))
	require.InDelta(t, 0.2, ts.Alpha(), 1e-12)
	require.Equal(t, int64(4), ts.Steps())

	// Zero-length and negative frames add nothing.
	require.Equal(t, 0, ts.Advance(0))
	require.Equal(t, 0, ts.Advance(-time.Hour))
	require.InDelta(t, 0.2, ts.Alpha(), 1e-12)
	require.Equal(t, 2*time.Millisecond, ts.Pending())

	ts.Reset()
	require.Zero(t, ts.Steps())
	require.Zero(t, ts.Alpha())
}

// TestTimestepCap: a stalled process catches up by at most MaxSteps and
// drops the rest, counted; huge frame times neither overflow nor spiral.
func TestTimestepCap(t *testing.T) {
	ts, err := playout.NewTimestep(playout.TimestepConfig{Step: 10 * time.Millisecond, MaxSteps: 5})
	require.NoError(t, err)
	require.Equal(t, 5, ts.Advance(time.Second+3*time.Millisecond))
	require.InDelta(t, 0.3, ts.Alpha(), 1e-9)
	require.Equal(t, 950*time.Millisecond, ts.Dropped())
	require.Equal(t, 1, ts.Advance(7*time.Millisecond)) // the remainder was kept

	for range 3 {
		require.Equal(t, 5, ts.Advance(math.MaxInt64))
		require.GreaterOrEqual(t, ts.Alpha(), 0.0)
		require.Less(t, ts.Alpha(), 1.0)
	}
	require.Equal(t, time.Duration(math.MaxInt64), ts.Dropped(), "saturates")
	require.NoError(t, ts.SetScale(1.1))
	require.Equal(t, 5, ts.Advance(math.MaxInt64))
}

// TestTimestepDilation: a time scale stretches the cadence without ever
// skipping or doubling a step, and a scale beyond the bound gets the bound.
func TestTimestepDilation(t *testing.T) {
	ts, err := playout.NewTimestep(playout.TimestepConfig{})
	require.NoError(t, err)
	require.NoError(t, ts.SetScale(1.5))
	require.Equal(t, 1+0.10, ts.Scale())
	require.NoError(t, ts.SetScale(-3))
	require.Equal(t, 1-0.10, ts.Scale())
	require.ErrorIs(t, ts.SetScale(math.NaN()), playout.ErrNotFinite)
	require.ErrorIs(t, ts.SetScale(math.Inf(1)), playout.ErrNotFinite)
	require.Equal(t, 1-0.10, ts.Scale(), "unchanged by a refused scale")

	const draw = time.Second / 144
	for _, scale := range []float64{0.9, 0.95, 1, 1.05, 1.1} {
		ts.Reset()
		require.NoError(t, ts.SetScale(scale))
		frames := 144 * 10 // ten seconds
		for range frames {
			n := ts.Advance(draw)
			require.LessOrEqual(t, n, 1, "scale %v doubled a step", scale)
		}
		want := 600 * scale
		require.InDelta(t, want, float64(ts.Steps()), 1, "scale %v", scale)
	}
}
