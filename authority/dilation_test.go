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

// Time dilation under jitter and a starved client (the ticks of a process
// beside a CPU hog come late, then in a burst): the advice holds the
// latest inputs on time, so almost none arrive late, and it settles near
// the clock's own rate instead of slowing the client (which the bursts of
// early inputs ask for when the mean depth is held: seen at the -10% cap
// with many late inputs).
func TestTimeDilationJitterAndHog(t *testing.T) {
	link := local.Link{Latency: 40 * time.Millisecond, Jitter: 30 * time.Millisecond}
	c := newCluster(t, clusterOpts{seed: 22, players: 1, link: link})
	a := c.add("a", ClientConfig{}, mash(1, 3))
	a.hog = 4
	c.run(10 * time.Second)
	require.True(t, a.c.Synchronized())
	before := c.h.Clients(nil)[0]
	const n = 1200 // 20 s
	worst := 0.0
	for range n {
		c.run(tick)
		worst = max(worst, math.Abs(c.h.Clients(nil)[0].Rate))
	}
	s := c.h.Clients(nil)[0]
	late := s.LateInputs - before.LateInputs
	t.Logf("depth %.2f, rate %.3f (worst %.3f), late inputs %d of %d frames", s.Depth, s.Rate, worst, late, n)
	require.LessOrEqual(t, late, uint64(n/100), "late inputs: at most 1%% of the frames")
	require.Less(t, math.Abs(s.Rate), 0.03, "the advice settles near the clock's rate")
	require.Less(t, worst, 0.1, "never pinned at the cap")
}
