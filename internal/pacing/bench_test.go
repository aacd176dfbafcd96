package pacing_test

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/rollnet/rollnet/internal/pacing"
	"github.com/rollnet/rollnet/playout"
)

// Benchmarks of each piece's per-tick (or per-frame) call, all 0 B/op. The
// queue is paired with its physical baseline in the same run: one copy of
// the state into a slot, which is what a Push costs at the least:
//
//	BenchmarkQueuePushTick/192B  vs BenchmarkQueuePushTickBaselineCopy/192B
//	BenchmarkQueuePushTick/36000B vs BenchmarkQueuePushTickBaselineCopy/36000B
//
// Run: go test -run '^$' -bench . -benchmem ./internal/pacing/

type world192 [192 / 8]uint64

var benchSink float64

func BenchmarkQueuePushTick(b *testing.B) {
	b.Run("192B", benchQueue[world192])
	b.Run("36000B", benchQueue[bigWorld])
}

// benchQueue pushes one state and ticks once per op, with states arriving
// two ticks ahead, reordered in pairs, as a steady jittery stream does.
func benchQueue[S any](b *testing.B) {
	q, err := pacing.NewQueue[S](playout.QueueConfig{})
	if err != nil {
		b.Fatal(err)
	}
	var s S
	b.SetBytes(int64(sizeOf(&s)))
	b.ReportAllocs()
	f := int32(0)
	for b.Loop() {
		f++
		g := f
		if f%2 == 0 {
			g = f + 1
		} else if f > 1 {
			g = f - 1
		}
		q.Push(g, &s)
		_, fr, _ := q.Tick()
		benchSink += float64(fr)
	}
}

func BenchmarkQueuePushTickBaselineCopy(b *testing.B) {
	b.Run("192B", benchCopy[world192])
	b.Run("36000B", benchCopy[bigWorld])
}

// benchCopy copies the state into one of as many slots as the queue has.
func benchCopy[S any](b *testing.B) {
	slots := make([]S, pacing.DefaultCapacity+1)
	var s S
	b.SetBytes(int64(sizeOf(&s)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		slots[i] = s
		i = (i + 1) % len(slots)
	}
}

func sizeOf[S any](s *S) int { return binary.Size(s) }

func BenchmarkClockAdvance(b *testing.B) {
	c, _ := pacing.NewClock(playout.ClockConfig{})
	ts, _ := playout.NewTimestep(playout.TimestepConfig{})
	f := int32(0)
	b.ReportAllocs()
	for b.Loop() {
		for range ts.Advance(time.Second / 144) {
			f++
			c.ObserveAt(f, ts.Pending())
		}
		t, _ := c.Advance(time.Second / 144)
		benchSink += t
	}
}

// BenchmarkHistoryPutAt puts a 192-byte state a tick and blends at a render
// time three frames back, with every seventh frame missing (bridged).
func BenchmarkHistoryPutAt(b *testing.B) {
	h, _ := pacing.NewHistory[world192](pacing.HistoryConfig{})
	var s world192
	f := int32(0)
	b.ReportAllocs()
	for b.Loop() {
		f++
		if f%7 != 0 {
			h.Put(f, &s)
		}
		a, c, w, _ := h.At(float64(f) - 3.4)
		benchSink += float64(a[0]+c[0]) + w
	}
}

func BenchmarkRTTObserve(b *testing.B) {
	r, _ := pacing.NewRTT(pacing.RTTConfig{})
	d := 40 * time.Millisecond
	b.ReportAllocs()
	for b.Loop() {
		d ^= time.Millisecond
		_ = r.Observe(d)
		benchSink += float64(r.Smoothed())
	}
}

func BenchmarkClockSyncObserve(b *testing.B) {
	for _, w := range []int{32, 256} {
		b.Run(map[int]string{32: "window32", 256: "window256"}[w], func(b *testing.B) {
			c, _ := pacing.NewClockSync(pacing.ClockSyncConfig{Window: w})
			now := time.Duration(0)
			b.ReportAllocs()
			for b.Loop() {
				now += 100 * time.Millisecond
				_ = c.ObserveExchange(now, now+time.Hour, now+40*time.Millisecond)
				o, _ := c.Offset(now)
				benchSink += float64(o)
			}
		})
	}
}

func BenchmarkArrivalObserve(b *testing.B) {
	a, _ := pacing.NewArrival(pacing.ArrivalConfig{})
	f := int32(0)
	now := time.Duration(0)
	b.ReportAllocs()
	for b.Loop() {
		f++
		now += playout.DefaultStep + time.Duration(f%3)*time.Millisecond
		a.Observe(f, now)
		benchSink += float64(a.NeededDelay())
	}
}
