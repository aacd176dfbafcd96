package local_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/race"

	"github.com/rollnet/rollnet/transport/local"
)

// The statistical tests run on fixed seeds, so they are deterministic; their
// tolerances are still honest (4 to 5 standard deviations, or the model's
// exact bounds), so that any seed passes and a wrong model fails.

// sample scales a statistical test's sample size down under -race, which
// makes each datagram about 20 times slower; the tolerances follow the size.
func sample(n int) int {
	if race.Enabled {
		return n / 5
	}
	return n
}

// within fails unless got is within tol of want.
func within(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	require.InDelta(t, want, got, tol, "%s: got %.5g, want %.5g ± %.3g", name, got, want, tol)
}

func TestLatencyJitterDistribution(t *testing.T) {
	const (
		N       = 20000
		latency = 100 * time.Millisecond
		jitter  = 15 * time.Millisecond
		bins    = 10
	)
	f := newFixture(t, local.Config{Seed: 1, Link: local.Link{Latency: latency, Jitter: jitter}}, "a", "b")
	var sum, sumSq float64
	lo, hi := time.Duration(math.MaxInt64), time.Duration(0)
	var hist [bins]int
	for i := range N {
		sent := f.clock.Now()
		f.sendSeq("a", "b", uint64(i))
		at, ok := local.NextArrival(f.eps["b"])
		require.True(t, ok)
		d := at.Sub(sent)
		// Not a nanosecond early, exactly on time.
		f.clock.Set(at.Add(-1))
		require.Empty(t, f.drain("b"), "delivered before its time")
		f.clock.Set(at)
		got := f.drain("b")
		require.Len(t, got, 1)
		require.EqualValues(t, i, got[0].seq)

		lo, hi = min(lo, d), max(hi, d)
		x := float64(d - latency)
		sum += x
		sumSq += x * x
		hist[min(bins-1, int(float64(d-(latency-jitter))/float64(2*jitter+1)*bins))]++
	}
	require.GreaterOrEqual(t, lo, latency-jitter)
	require.LessOrEqual(t, hi, latency+jitter)
	// Uniform on [-J, J]: mean 0, variance J²/3; the extremes are reached.
	j := float64(jitter)
	sd := j / math.Sqrt(3)
	within(t, "mean offset", sum/N, 0, 5*sd/math.Sqrt(N))
	variance := sumSq/N - (sum/N)*(sum/N)
	// Var of the sample variance of a uniform: (E[x^4]-σ^4)/N = (J^4/5 - J^4/9)/N.
	within(t, "variance", variance, j*j/3, 5*math.Sqrt((1.0/5-1.0/9)/N)*j*j)
	require.Less(t, lo, latency-jitter+time.Millisecond, "the low end is never reached")
	require.Greater(t, hi, latency+jitter-time.Millisecond, "the high end is never reached")
	// Chi-square over equal bins, 9 degrees of freedom: 27.9 is p = 0.001.
	var chi2 float64
	for _, c := range hist {
		e := float64(N) / bins
		chi2 += (float64(c) - e) * (float64(c) - e) / e
	}
	require.Less(t, chi2, 27.9, "jitter not uniform: %v", hist)
}

// lossPattern sends n datagrams over a zero-delay link and reports, in send
// order, which were lost.
func lossPattern(t *testing.T, seed uint64, link local.Link, n int) []bool {
	f := newFixture(t, local.Config{Seed: seed, Link: link}, "a", "b")
	lost := make([]bool, n)
	a, b := f.eps["a"], f.eps["b"]
	msg := []byte("datagram")
	for i := range n {
		if err := a.Send("b", msg); err != nil {
			t.Fatal(err)
		}
		_, _, err := b.Receive(f.buf)
		lost[i] = err != nil
	}
	s := f.net.LinkStats("a", "b")
	conserved(t, s)
	var c uint64
	for _, l := range lost {
		if l {
			c++
		}
	}
	require.Equal(t, c, s.Lost, "Stats.Lost disagrees with what arrived")
	return lost
}

// runs returns the lengths of the runs of consecutive losses.
func runs(lost []bool) []int {
	var out []int
	r := 0
	for _, l := range lost {
		if l {
			r++
		} else if r > 0 {
			out = append(out, r)
			r = 0
		}
	}
	if r > 0 {
		out = append(out, r)
	}
	return out
}

func mean(xs []int) float64 {
	s := 0
	for _, x := range xs {
		s += x
	}
	return float64(s) / float64(len(xs))
}

func TestIndependentLoss(t *testing.T) {
	N := sample(100000)
	for _, p := range []float64{0.002, 0.02, 0.1, 0.5} {
		lost := lossPattern(t, 7, local.Link{Loss: p}, N)
		c := 0
		for _, l := range lost {
			if l {
				c++
			}
		}
		within(t, "loss rate", float64(c)/float64(N), p, 5*math.Sqrt(p*(1-p)/float64(N)))
		// Independent losses: runs are geometric with mean 1/(1-p).
		if p >= 0.02 {
			r := runs(lost)
			sdRun := math.Sqrt(p) / (1 - p)
			within(t, "mean loss run", mean(r), 1/(1-p), 5*sdRun/math.Sqrt(float64(len(r))))
		}
	}
	require.NotContains(t, lossPattern(t, 7, local.Link{Loss: 0}, 1000), true)
	require.NotContains(t, lossPattern(t, 7, local.Link{Loss: 1}, 1000), false)
}

func TestBurstLoss(t *testing.T) {
	N := sample(400000)
	for _, c := range []struct {
		burst    local.Burst
		goodLoss float64
	}{
		{local.Burst{Enter: 0.01, Leave: 0.2}, 0}, // bad spells of 5, all lost
		{local.Burst{Enter: 0.02, Leave: 0.1}, 0}, // of 10
		{local.Burst{Enter: 0.01, Leave: 0.25, Loss: 0.5}, 0.01},
	} {
		link := local.Link{Loss: c.goodLoss, Burst: c.burst}
		lost := lossPattern(t, 11, link, N)
		bl := c.burst.Loss
		if bl == 0 {
			bl = 1
		}
		piBad := c.burst.Enter / (c.burst.Enter + c.burst.Leave)
		want := piBad*bl + (1-piBad)*c.goodLoss
		n := 0
		for _, l := range lost {
			if l {
				n++
			}
		}
		// Losses are correlated: the variance of the count is inflated by
		// about (1+ρ)/(1-ρ), ρ = 1-Enter-Leave, the state's lag-1
		// autocorrelation.
		rho := 1 - c.burst.Enter - c.burst.Leave
		sd := math.Sqrt(want * (1 - want) * (1 + rho) / (1 - rho) / float64(N))
		within(t, "burst loss rate", float64(n)/float64(N), want, 5*sd)
		if bl == 1 && c.goodLoss == 0 {
			// Every run of losses is exactly one bad spell: geometric with
			// mean 1/Leave.
			r := runs(lost)
			m := 1 / c.burst.Leave
			sdRun := math.Sqrt(1-c.burst.Leave) / c.burst.Leave
			within(t, "mean burst length", mean(r), m, 5*sdRun/math.Sqrt(float64(len(r))))
		}
	}
	// The same loss rate without the burst model has short runs.
	lost := lossPattern(t, 11, local.Link{Loss: 0.0476}, N)
	require.Less(t, mean(runs(lost)), 1.1)
}

func TestDuplicate(t *testing.T) {
	N := sample(50000)
	const p = 0.1
	f := newFixture(t, local.Config{Seed: 3, Link: local.Link{Latency: 10 * time.Millisecond, Jitter: 5 * time.Millisecond, Duplicate: p}}, "a", "b")
	count := map[uint64]int{}
	firstAt := map[uint64]time.Duration{}
	apart := 0 // duplicates that arrive at another time than their original
	note := func(ds []delivery) {
		for _, d := range ds {
			count[d.seq]++
			if count[d.seq] == 1 {
				firstAt[d.seq] = d.at
			} else if d.at != firstAt[d.seq] {
				apart++
			}
		}
	}
	for i := range N {
		f.sendSeq("a", "b", uint64(i))
		f.clock.Advance(time.Millisecond)
		note(f.drain("b"))
	}
	note(f.runUntilIdle("b"))
	dups := 0
	for seq, c := range count {
		require.LessOrEqual(t, c, 2, "datagram %d delivered %d times", seq, c)
		dups += c - 1
	}
	// A copy draws its own delay: with ±5 ms at 1 ms resolution, it
	// arrives at its original's millisecond about 1 time in 10.
	require.Greater(t, apart, dups*3/4, "duplicates do not draw their own delay")
	require.Len(t, count, N, "a datagram was lost on a loss-free link")
	within(t, "duplicate rate", float64(dups)/float64(N), p, 5*math.Sqrt(p*(1-p)/float64(N)))
	s := f.net.LinkStats("a", "b")
	require.EqualValues(t, dups, s.Duplicated)
	conserved(t, s)
}

// overtaken counts the datagrams that arrive after one sent later.
func overtaken(ds []delivery) int {
	n := 0
	var maxSeq uint64
	for i, d := range ds {
		if i > 0 && d.seq < maxSeq {
			n++
		}
		maxSeq = max(maxSeq, d.seq)
	}
	return n
}

func TestReorder(t *testing.T) {
	const N = 20000
	const p = 0.05
	// No jitter: only Reorder changes the order. A held-back datagram waits
	// 20 ms more, so the 19 sent after it, one a millisecond, overtake it.
	f := newFixture(t, local.Config{Seed: 5, Link: local.Link{Latency: 30 * time.Millisecond, Reorder: p}}, "a", "b")
	var got []delivery
	for i := range N {
		f.sendSeq("a", "b", uint64(i))
		f.clock.Advance(time.Millisecond)
		got = append(got, f.drain("b")...)
	}
	got = append(got, f.runUntilIdle("b")...)
	require.Len(t, got, N)
	within(t, "reorder rate", float64(overtaken(got))/N, p, 5*math.Sqrt(p*(1-p)/float64(N)))
	for _, d := range got {
		lateness := d.at - time.Duration(d.seq+1)*time.Millisecond
		require.True(t, lateness == 29*time.Millisecond || lateness == 49*time.Millisecond,
			"datagram %d delayed %v", d.seq, lateness+time.Millisecond)
	}
}

func TestOrderedNeverReorders(t *testing.T) {
	link := local.Link{Latency: 50 * time.Millisecond, Jitter: 45 * time.Millisecond, Loss: 0.1, Duplicate: 0.3}
	run := func(ordered bool) []delivery {
		link.Ordered = ordered
		f := newFixture(t, local.Config{Seed: 9, Link: link}, "a", "b")
		var got []delivery
		for i := range 5000 {
			f.sendSeq("a", "b", uint64(i))
			f.clock.Advance(time.Millisecond)
			got = append(got, f.drain("b")...)
			// Never earlier than the link's minimum delay.
			for _, d := range got[max(0, len(got)-4):] {
				require.GreaterOrEqual(t, d.at, time.Duration(d.seq)*time.Millisecond+5*time.Millisecond)
			}
		}
		return append(got, f.runUntilIdle("b")...)
	}
	// The same link unordered reorders a lot: the test can see reordering.
	require.Greater(t, overtaken(run(false)), 1000)
	got := run(true)
	require.Greater(t, len(got), 4000)
	for i := 1; i < len(got); i++ {
		require.LessOrEqual(t, got[i-1].seq, got[i].seq, "ordered link delivered %d after %d", got[i].seq, got[i-1].seq)
	}
}

func TestPartition(t *testing.T) {
	f := newFixture(t, local.Config{Seed: 1, Link: local.Link{Latency: 20 * time.Millisecond}}, "a", "b", "c")
	// In flight when the partition begins: lost.
	f.sendSeq("a", "b", 1)
	f.sendSeq("b", "a", 2)
	f.sendSeq("a", "c", 3)
	f.clock.Advance(10 * time.Millisecond)
	f.net.Partition("a", "b")
	for i := range 100 {
		f.sendSeq("a", "b", uint64(100+i))
		f.sendSeq("b", "a", uint64(200+i))
		f.clock.Advance(5 * time.Millisecond)
		require.Empty(t, f.drain("a"), "a received across the partition")
		require.Empty(t, f.drain("b"), "b received across the partition")
	}
	// Other links are not affected.
	got := f.runUntilIdle("c")
	require.Len(t, got, 1)
	require.EqualValues(t, 3, got[0].seq)
	ab := f.net.LinkStats("a", "b")
	require.EqualValues(t, 101, ab.Partitioned)
	conserved(t, ab)

	f.net.Heal("a", "b")
	f.sendSeq("a", "b", 7)
	f.sendSeq("b", "a", 8)
	require.Len(t, f.runUntilIdle("b"), 1)
	require.Len(t, f.runUntilIdle("a"), 1)
	conserved(t, f.net.Stats())
}

func TestQueueFullDropsAndCounts(t *testing.T) {
	f := newFixture(t, local.Config{QueueLen: 4, Link: local.Link{Latency: time.Millisecond}}, "a", "b", "c")
	for i := range 6 {
		f.sendSeq("a", "b", uint64(i))
	}
	// a holds the whole queue: its own extra datagrams are refused, and c's
	// takes the place of a's newest.
	f.sendSeq("c", "b", 99)
	require.EqualValues(t, 3, f.net.LinkStats("a", "b").DroppedFull)
	require.Zero(t, f.net.LinkStats("c", "b").DroppedFull)
	// Due at the same time, the senders take turns.
	var seqs []uint64
	for _, d := range f.runUntilIdle("b") {
		seqs = append(seqs, d.seq)
	}
	require.Equal(t, []uint64{0, 99, 1, 2}, seqs)
	// Room again once drained: the queue's buffers are reused.
	for round := range 10 {
		for i := range 4 {
			f.sendSeq("a", "b", uint64(10*round+i))
		}
		require.Len(t, f.runUntilIdle("b"), 4)
	}
	sent, received := f.eps["b"].Stats()
	require.Zero(t, sent.Sent)
	require.EqualValues(t, 3, received.DroppedFull)
	require.EqualValues(t, 44, received.Delivered)
	conserved(t, received)
}
