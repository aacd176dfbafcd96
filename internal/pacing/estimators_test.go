package pacing_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/pacing"
)

func TestEstimatorConfigs(t *testing.T) {
	for _, c := range []pacing.RTTConfig{{Alpha: 2}, {Beta: -1}, {Max: time.Microsecond}, {Max: 2 * time.Hour}} {
		_, err := pacing.NewRTT(c)
		require.ErrorIs(t, err, rollnet.ErrConfig, "%+v", c)
	}
	for _, c := range []pacing.ClockSyncConfig{{Window: 1}, {Window: 5000}, {Window: -1}} {
		_, err := pacing.NewClockSync(c)
		require.ErrorIs(t, err, rollnet.ErrConfig, "%+v", c)
	}
	for _, c := range []pacing.ArrivalConfig{{Step: -1}, {Smoothing: 1.5}, {Window: -1}, {Window: 4097}} {
		_, err := pacing.NewArrival(c)
		require.ErrorIs(t, err, rollnet.ErrConfig, "%+v", c)
	}
}

// TestRTT checks RFC 6298's arithmetic on a short known sequence.
func TestRTT(t *testing.T) {
	r, err := pacing.NewRTT(pacing.RTTConfig{})
	require.NoError(t, err)
	require.Zero(t, r.Smoothed())
	ms := time.Millisecond
	require.NoError(t, r.Observe(100*ms))
	require.Equal(t, 100*ms, r.Smoothed())
	require.Equal(t, 50*ms, r.Deviation())
	require.NoError(t, r.Observe(60*ms))
	// RTTVAR = 3/4·50 + 1/4·|100-60| = 47.5; SRTT = 7/8·100 + 1/8·60 = 95.
	require.Equal(t, 95*ms, r.Smoothed())
	require.Equal(t, 47500*time.Microsecond, r.Deviation())
	require.Equal(t, 60*ms, r.Min())
	require.Equal(t, 285*ms, r.Timeout())
	require.Equal(t, int64(2), r.Samples())

	for _, bad := range []time.Duration{0, -ms, 2 * time.Minute} {
		require.ErrorIs(t, r.Observe(bad), pacing.ErrSample)
	}
	require.Equal(t, int64(3), r.Rejected())
	require.Equal(t, 95*ms, r.Smoothed(), "refused samples change nothing")
	r.Reset()
	require.Zero(t, r.Samples())
}

// TestClockSync recovers a known offset and skew through symmetric
// exchanges, forgets what slid out of its window, and refuses a reply that
// came before its request.
func TestClockSync(t *testing.T) {
	c, err := pacing.NewClockSync(pacing.ClockSyncConfig{Window: 16})
	require.NoError(t, err)
	_, ok := c.Offset(0)
	require.False(t, ok)
	require.Zero(t, c.Skew())

	const skew = 50e-6 // the remote clock runs 50 ppm fast
	offset := func(local time.Duration) time.Duration {
		return 2*time.Second + time.Duration(skew*float64(local))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 40 {
		sent := time.Duration(i) * 100 * time.Millisecond
		oneWay := 20 * time.Millisecond
		rtt := 2*oneWay + time.Duration(rng.IntN(10))*time.Millisecond // symmetric queueing
		mid := sent + rtt/2
		require.NoError(t, c.ObserveExchange(sent, mid+offset(mid), sent+rtt))
	}
	require.Equal(t, 16, c.Samples())
	require.InDelta(t, skew, c.Skew(), 1e-9)
	at := 10 * time.Second // extrapolated past the newest sample
	got, ok := c.Offset(at)
	require.True(t, ok)
	require.InDelta(t, float64(offset(at)), float64(got), float64(time.Microsecond))
	rem, _ := c.Remote(at)
	require.Equal(t, at+got, rem)

	// The window slides: a step change in offset is followed once the old
	// samples are gone.
	for i := range 16 {
		local := time.Duration(100+i) * time.Second
		c.Observe(local, -time.Second)
	}
	got, _ = c.Offset(116 * time.Second)
	require.InDelta(t, float64(-time.Second), float64(got), 1)
	require.InDelta(t, 0, c.Skew(), 1e-12)

	require.ErrorIs(t, c.ObserveExchange(time.Second, 0, time.Second-1), pacing.ErrSample)
	require.Equal(t, int64(1), c.Rejected())

	// Every sample at one local time: no slope to fit, the mean offset.
	c.Reset()
	c.Observe(time.Second, 10)
	c.Observe(time.Second, 20)
	got, _ = c.Offset(5 * time.Second)
	require.Equal(t, time.Duration(15), got)
	require.Zero(t, c.Skew())
}

// TestArrival: a steady stream needs one interval and has no jitter, a
// constant delay cancels out, a jittery one needs more, and a reordered
// frame is late but never an interval.
func TestArrival(t *testing.T) {
	a, err := pacing.NewArrival(pacing.ArrivalConfig{})
	require.NoError(t, err)
	require.False(t, a.WarmedUp())
	for f := range int32(200) {
		a.Observe(f, 5*time.Second+time.Duration(f)*frame) // a long constant delay
	}
	require.True(t, a.WarmedUp())
	require.Equal(t, frame, a.Interval())
	require.Zero(t, a.Lateness())
	require.Zero(t, a.Jitter())
	require.InDelta(t, 1.0, a.NeededFrames(), 1e-9)
	a.Observe(100, 5*time.Second+200*frame) // a reordered straggler
	require.Equal(t, frame, a.Interval())
	require.Positive(t, a.Lateness())

	// Sent every other frame, with ±1 frame of jitter.
	a.Reset()
	require.Zero(t, a.Samples())
	rng := rand.New(rand.NewPCG(3, 4))
	for f := int32(0); f < 2000; f += 2 {
		j := time.Duration((rng.Float64()*2 - 1) * float64(frame))
		a.Observe(f, 50*time.Millisecond+time.Duration(f)*frame+j)
	}
	require.InDelta(t, float64(2*frame), float64(a.Interval()), float64(time.Microsecond))
	require.Greater(t, a.Jitter(), frame/4)
	require.Less(t, a.Jitter(), frame)
	need := a.NeededFrames()
	require.Greater(t, need, 3.0, "interval (2) plus the spread")
	require.Less(t, need, 6.0)
	require.False(t, math.IsNaN(need))
}
