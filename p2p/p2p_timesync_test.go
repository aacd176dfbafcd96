package p2p

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// frameGap samples |Frame(a) - Frame(b)| every tick for d and returns the
// largest gap, the mean, and the largest gap right after a finished a wait
// it was advised to make.
func frameGap(c *p2pCluster, a, b *p2pNode, d time.Duration) (worst int, mean float64, afterWait int) {
	end := c.clock.Now().Add(d)
	n, sum := 0, 0
	waiting := false
	for c.clock.Now().Before(end) {
		c.run(time.Second / 60)
		g := int(a.p.Frame() - b.p.Frame())
		if g < 0 {
			g = -g
		}
		worst = max(worst, g)
		sum += g
		n++
		w := a.p.WaitRecommendation() > 0
		if waiting && !w {
			afterWait = max(afterWait, g)
		}
		waiting = w
	}
	return worst, float64(sum) / float64(n), afterWait
}

// A peer that starts 20 frames late is caught up with: the one ahead is
// told to wait, and after following the advice the two run within 2
// frames of each other.
func TestP2PTimeSyncLateStart(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 2, seed: 9, mash: 0.2,
		link: local.Link{Latency: 40 * time.Millisecond, Jitter: 6 * time.Millisecond},
		cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 64}})
	a, b := c.nodes[0], c.nodes[1]
	c.until(5*time.Second, "running", func() bool { return a.p.Running() && b.p.Running() })
	b.paused = true
	c.run(20 * time.Second / 60)
	b.paused = false
	require.GreaterOrEqual(t, int(a.p.Frame()-b.p.Frame()), 18)
	c.run(5 * time.Second)
	worst, mean, _ := frameGap(c, a, b, 10*time.Second)
	t.Logf("after catching up: worst gap %d, mean %.2f; a waited %d ticks, b %d", worst, mean, a.waited, b.waited)
	require.LessOrEqual(t, worst, 2)
	require.Greater(t, a.waited, 10)
	_, ok := a.first(rollnet.EventWaitRecommended)
	require.True(t, ok)
}

// A peer whose clock runs 5% fast is held back by wait recommendations to
// within 2 frames of its peer.
func TestP2PTimeSyncFastClock(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 2, seed: 10, mash: 0.2,
		link: local.Link{Latency: 40 * time.Millisecond, Jitter: 6 * time.Millisecond},
		cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 64}})
	a, b := c.nodes[0], c.nodes[1]
	a.period = time.Second * 100 / 60 / 105
	c.run(5 * time.Second)
	worst, mean, after := frameGap(c, a, b, 30*time.Second)
	t.Logf("5%% fast: worst gap %d, mean %.2f, after a wait %d; a waited %d ticks, b %d", worst, mean, after, a.waited, b.waited)
	// The fast peer drifts ahead until the advice (at 3 frames, the
	// default MinWait) comes, then waits back to within 2 frames.
	require.LessOrEqual(t, after, 2)
	require.LessOrEqual(t, worst, 4)
	require.Less(t, mean, 2.0)
	require.Greater(t, a.waited, 30*3/2)
}

// Without following the advice the gap grows: the test can fail.
func TestP2PTimeSyncIgnoredAdviceDrifts(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 2, seed: 10, mash: 0.2,
		link: local.Link{Latency: 40 * time.Millisecond, Jitter: 6 * time.Millisecond},
		cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 64}})
	a, b := c.nodes[0], c.nodes[1]
	a.period = time.Second * 100 / 60 / 105
	a.follow = false
	c.run(5 * time.Second)
	worst, _, _ := frameGap(c, a, b, 10*time.Second)
	require.Greater(t, worst, 4)
}

// A loop started 28 ticks late over 50±10 ms with 1% loss (issue 19 defect
// 2): the early side is told to wait about its lead once; the gap then
// settles within 2 frames and the late side never runs more than 2 frames
// ahead. The estimate used to mix fresh local samples with remote ones up
// to a quality interval old, which still described the lead already waited
// out: the early side was told to wait 32 frames for a 31-frame lead, then
// 9 more, and the late side ran about 10 frames ahead for 100 ticks.
func TestP2PTimeSyncLateStartNoOvershoot(t *testing.T) {
	for _, seed := range []uint64{11, 12, 13} {
		c := newCluster(t, clusterOpts{players: 2, seed: seed, mash: 0.2,
			link: local.Link{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.01},
			cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 64}})
		a, b := c.nodes[0], c.nodes[1]
		c.until(5*time.Second, "running", func() bool { return a.p.Running() && b.p.Running() })
		b.paused = true
		c.run(28 * time.Second / 60)
		b.paused = false
		overshoot, settledWorst := 0, 0
		for tick := range 20 * 60 {
			c.run(time.Second / 60)
			g := int(a.p.Frame() - b.p.Frame())
			overshoot = max(overshoot, -g)
			if tick >= 5*60 {
				settledWorst = max(settledWorst, g, -g)
			}
		}
		var waits []int
		for _, e := range a.kinds(rollnet.EventWaitRecommended) {
			waits = append(waits, e.Frames)
		}
		t.Logf("seed %d: a's waits %v, b's %d; b ahead by at most %d; after 5 s the gap is at most %d", seed, waits, len(b.kinds(rollnet.EventWaitRecommended)), overshoot, settledWorst)
		require.LessOrEqual(t, overshoot, 2, "seed %d: the late side ran ahead", seed)
		require.LessOrEqual(t, settledWorst, 2, "seed %d: the gap did not settle", seed)
	}
}
