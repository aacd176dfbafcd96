package elapsed

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNanosIsSub: Nanos is Sub from and to readings with and without a monotonic
// reading, mixed, in other zones, near and past the range UnixNano holds,
// and far apart (Sub saturates).
func TestNanosIsSub(t *testing.T) {
	now := time.Now()
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	times := []time.Time{now, now.Add(time.Hour), now.Round(0), now.Add(-time.Minute).Round(0), epoch,
		epoch.Add(16666666), epoch.In(time.FixedZone("x", 3600)), {},
		time.Unix(limit-1, 999999999), time.Unix(-limit+1, 0), time.Unix(limit, 0), time.Unix(-limit, 0),
		time.Unix(math.MaxInt64/2, 0), time.Unix(math.MinInt64/2, 0), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		times = append(times, epoch.Add(time.Duration(rng.Int64N(1<<62)-1<<61)), now.Add(time.Duration(rng.Int64N(1<<40))))
	}
	for _, b := range times {
		o := From(b)
		for _, a := range times {
			require.Equal(t, int64(a.Sub(b)), o.Nanos(a), "%v - %v", a, b)
		}
	}
}

func BenchmarkNanos(b *testing.B) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t := start.Add(time.Minute)
	o := From(start)
	var sink int64
	for b.Loop() {
		sink += o.Nanos(t)
	}
	_ = sink
}

// BenchmarkNanosBaselineSub is Nanos's baseline: Sub itself.
func BenchmarkNanosBaselineSub(b *testing.B) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t := start.Add(time.Minute)
	var sink int64
	for b.Loop() {
		sink += int64(t.Sub(start))
	}
	_ = sink
}
