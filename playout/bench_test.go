package playout_test

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet/playout"
)

// Benchmarks of each piece's per-step (or per-frame) call, all 0 B/op.
// Run: go test -run '^$' -bench . -benchmem ./playout/

var benchSink float64

func BenchmarkTimestepAdvance(b *testing.B) {
	ts, _ := playout.NewTimestep(playout.TimestepConfig{})
	_ = ts.SetScale(1.03)
	b.ReportAllocs()
	for b.Loop() {
		benchSink += float64(ts.Advance(time.Second/144)) + ts.Alpha()
	}
}

func BenchmarkSmootherAdvance(b *testing.B) {
	s, _ := playout.NewSmoother(playout.SmootherConfig{})
	b.ReportAllocs()
	for b.Loop() {
		if !s.Active() {
			_ = s.Correct(playout.Vec{1, 1, 0})
		}
		s.Advance(time.Second / 144)
		benchSink += s.Draw(playout.Vec{})[0]
	}
}
