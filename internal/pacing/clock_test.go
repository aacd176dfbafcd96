package pacing_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/pacing"
	"github.com/rollnet/rollnet/playout"
)

func TestClockConfig(t *testing.T) {
	c, err := pacing.NewClock(playout.ClockConfig{})
	require.NoError(t, err)
	require.Equal(t, playout.ClockConfig{Step: playout.DefaultStep, Delay: pacing.DefaultDelay,
		MaxRate: pacing.DefaultMaxRate, Gain: pacing.DefaultGain, Resync: pacing.DefaultResync}, c.Config())
	for _, cfg := range []playout.ClockConfig{
		{Step: -1}, {Delay: 0.1}, {Delay: 601}, {Delay: math.NaN()},
		{MaxRate: 0.6}, {MaxRate: -1}, {Gain: 2}, {Gain: -1},
		{Delay: 10, Resync: 15}, {Resync: 2e6},
	} {
		_, err := pacing.NewClock(cfg)
		require.ErrorIs(t, err, rollnet.ErrConfig, "%+v", cfg)
	}
	require.ErrorIs(t, c.SetDelay(math.Inf(1)), playout.ErrNotFinite)
	require.ErrorIs(t, c.SetDelay(0.2), rollnet.ErrConfig)
	require.ErrorIs(t, c.SetDelay(31), rollnet.ErrConfig)
	require.NoError(t, c.SetDelay(4))
	require.Equal(t, 4.0, c.Delay())
}

const frame = playout.DefaultStep

// TestClockStartsLate: a clock joining a stream at frame 1000 starts once a
// whole delay is available, at the newest frame minus the delay.
func TestClockStartsLate(t *testing.T) {
	c, err := pacing.NewClock(playout.ClockConfig{Delay: 3})
	require.NoError(t, err)
	_, ok := c.Advance(frame)
	require.False(t, ok)
	for f := int32(1000); f < 1003; f++ {
		c.Observe(f)
		_, ok := c.T()
		require.False(t, ok, "only %d frames", f-1000+1)
	}
	c.Observe(1002) // a duplicate changes nothing
	c.Observe(999)  // nor does a reordered older frame
	_, ok = c.T()
	require.False(t, ok)
	c.Observe(1003)
	tt, ok := c.T()
	require.True(t, ok)
	require.Equal(t, 1000.0, tt)
	nw, _ := c.Newest()
	require.Equal(t, int32(1003), nw)

	// Steady stream, one frame a step: T advances a frame a step, exactly.
	for f := int32(1004); f < 1100; f++ {
		tt, _ = c.Advance(frame)
		c.Observe(f)
	}
	require.InDelta(t, 1096.0, tt, 1e-6)
	require.InDelta(t, 1.0, c.Rate(), 1e-9)
	require.Zero(t, c.Error())
}

// TestClockSteersByRate: a stream that jumps ahead is followed at no more
// than 1+MaxRate, never by a snap; one that stalls is slowed to, at most,
// 1-MaxRate; zero-length frames leave T alone.
func TestClockSteersByRate(t *testing.T) {
	c, err := pacing.NewClock(playout.ClockConfig{Delay: 2})
	require.NoError(t, err)
	for f := int32(0); f <= 2; f++ {
		c.Observe(f)
	}
	c.Observe(30) // 28 frames ahead: steer, not snap
	prev, _ := c.T()
	for i := range int32(200) {
		tt, _ := c.Advance(frame)
		c.Observe(31 + i)
		require.InDelta(t, 1.1, tt-prev, 1e-9, "bounded at +10%")
		prev = tt
		tt2, _ := c.Advance(0)
		require.Equal(t, tt, tt2)
		tt2, _ = c.Advance(-time.Second)
		require.Equal(t, tt, tt2)
		if c.Error() < 10 {
			break
		}
	}
	require.Zero(t, c.Resyncs())

	// The stream stops: the clock slows within bound as it nears the newest.
	for range 400 {
		tt, _ := c.Advance(frame)
		d := tt - prev
		require.GreaterOrEqual(t, d, 0.9-1e-9)
		require.LessOrEqual(t, d, 1.1+1e-9)
		prev = tt
	}
}

// TestClockResync: a huge frame time, or a stream that jumps further than
// Resync, re-anchors (counted) instead of steering for minutes.
func TestClockResync(t *testing.T) {
	c, err := pacing.NewClock(playout.ClockConfig{})
	require.NoError(t, err)
	for f := int32(0); f <= 3; f++ {
		c.Observe(f)
	}
	tt, _ := c.Advance(10 * time.Minute)
	require.Equal(t, int64(1), c.Resyncs())
	require.InDelta(t, float64(36000), tt, 0.01)
	c.Observe(1_000_000)
	tt, _ = c.Advance(frame)
	require.Equal(t, int64(2), c.Resyncs())
	require.InDelta(t, 1_000_000+1-3.0, tt, 1e-6)
	tt, _ = c.Advance(math.MaxInt64)
	require.False(t, math.IsInf(tt, 0) || math.IsNaN(tt))

	c.Reset()
	_, ok := c.T()
	require.False(t, ok)
	_, ok = c.Newest()
	require.False(t, ok)
}
