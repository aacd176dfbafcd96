package pacing_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/pacing"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/playout"
)

// bigWorld is a state the size of the seed's (36 KB), so a copy that
// escaped to the heap would show.
type bigWorld [36000 / 8]uint64

// TestAllocs: every per-tick and per-frame call, refusals included, makes
// no allocation once constructed.
func TestAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	q, err := pacing.NewQueue[bigWorld](playout.QueueConfig{})
	require.NoError(t, err)
	c, err := pacing.NewClock(playout.ClockConfig{})
	require.NoError(t, err)
	rtt, err := pacing.NewRTT(pacing.RTTConfig{})
	require.NoError(t, err)
	cs, err := pacing.NewClockSync(pacing.ClockSyncConfig{})
	require.NoError(t, err)
	ar, err := pacing.NewArrival(pacing.ArrivalConfig{})
	require.NoError(t, err)
	hist, err := pacing.NewHistory[bigWorld](pacing.HistoryConfig{})
	require.NoError(t, err)

	var adv pacing.Advice
	var w bigWorld
	var frame int32
	var now time.Duration
	var sink float64
	for name, f := range map[string]func(){
		"Queue": func() {
			frame++
			w[0] = uint64(frame)
			q.Push(frame, &w)
			q.Push(frame, &w)   // duplicate
			q.Push(frame-9, &w) // late
			_, f, _ := q.Tick()
			sink += float64(f + int32(q.Len()))
			q.Push(frame+1, &w)
			_ = q.SetDepth(int(frame%4) + 1)
			_, f, _ = q.TickAhead(3)
			sink += float64(f)
			frame++
			_ = q.Stats()
		},
		"Advice": func() {
			frame++
			adv.Heard(frame+int32(frame%5), frame)
			if frame%7 == 0 {
				adv.Held()
			}
			adv.Advise(frame, frame, 2, 100)
			sink += float64(adv.Rate()) + adv.Margin() + adv.Skew()
		},
		"Queue/lost": func() {
			frame += 1000
			q.Push(frame, &w)
			q.Tick()
			q.LoseTimeline()
			q.Tick()
		},
		"Clock": func() {
			frame++
			c.ObserveAt(frame, time.Millisecond)
			tt, _ := c.Advance(time.Second / 144)
			sink += tt + c.Rate() + c.Error()
		},
		"RTT": func() {
			_ = rtt.Observe(40 * time.Millisecond)
			_ = rtt.Observe(-1)
			sink += float64(rtt.Smoothed() + rtt.Deviation() + rtt.Min())
		},
		"ClockSync": func() {
			now += time.Second
			_ = cs.ObserveExchange(now, now+time.Hour, now+40*time.Millisecond)
			_ = cs.ObserveExchange(now, 0, now-1)
			o, _ := cs.Offset(now)
			sink += float64(o) + cs.Skew()
		},
		"History": func() {
			frame++
			hist.Put(frame, &w)
			hist.Put(frame-2, &w)
			a, b, wt, _ := hist.At(float64(frame) - 2.5)
			sink += float64(a[0]+b[0]) + wt
			_, _ = hist.Get(frame - 1)
		},
		"Arrival": func() {
			frame++
			now += playout.DefaultStep
			ar.Observe(frame, now)
			sink += float64(ar.NeededDelay() + ar.Jitter())
		},
	} {
		allocs.RequireZero(t, 100, f, name)
	}
	_ = sink
}
