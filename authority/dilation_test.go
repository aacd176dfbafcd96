package authority

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport/local"
)

// Time dilation: a client started 30 frames further ahead than the target
// reaches the target depth ±1 without ever being advised more than 10%
// off rate; then a client whose clock runs 5% fast is held there.
func TestTimeDilation(t *testing.T) {
	link := local.Link{Latency: 50 * time.Millisecond, Jitter: 5 * time.Millisecond}
	c := newCluster(t, clusterOpts{seed: 21, players: 1, link: link})
	// The client anchors 30 frames past where the host's target wants it.
	a := c.add("a", ClientConfig{TargetDepth: 32}, mash(1, 3))
	worst := 0.0
	watch := func(d time.Duration) {
		for end := c.clock.Now().Add(d); c.clock.Now().Before(end); {
			c.run(tick)
			worst = max(worst, math.Abs(a.c.TimeScale()-1))
			if s := c.h.Clients(nil); len(s) > 0 {
				worst = max(worst, math.Abs(s[0].Rate))
			}
		}
	}
	watch(2 * time.Second)
	require.True(t, a.c.Synchronized())
	start := c.h.Clients(nil)[0].Depth
	require.Greater(t, start, 25.0, "the client starts about 30 frames off")
	watch(15 * time.Second)
	s := c.h.Clients(nil)[0]
	t.Logf("depth %.2f → %.2f, rate %.3f, worst %.3f", start, s.Depth, s.Rate, worst)
	require.InDelta(t, 2, s.Depth, 1)
	require.LessOrEqual(t, worst, 0.1+1e-9)

	// A 5%-fast clock: the advice slows it, and the depth holds.
	a.skew = 0.05
	watch(20 * time.Second)
	var sum float64
	const n = 600
	for range n {
		watch(tick)
		sum += c.h.Clients(nil)[0].Depth
	}
	s = c.h.Clients(nil)[0]
	t.Logf("fast clock: mean depth %.2f, rate %.3f, worst %.3f", sum/n, s.Rate, worst)
	require.InDelta(t, 2, sum/n, 1)
	require.InDelta(t, -0.05, s.Rate, 0.02, "the advice cancels the fast clock")
	require.LessOrEqual(t, worst, 0.1+1e-9)
}
