package p2p

import (
	"slices"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// partitionFigures is what a spectator on a lossy link did around its
// host's partitions: its trail before (frames behind the host's confirmed
// frame, each tick), and after each partition ended, how long it took to
// trail no more than it did before, and the most it trailed from then on.
type partitionFigures struct {
	before   int             // the 90th percentile of its trail before any partition
	worst    int             // the most it trailed before any partition
	toLive   []time.Duration // per partition, from its end to trailing at most before
	trailing []int           // per partition, the most it trailed from toLive on
	bytes    uint64          // the host sent it, from the first partition to the end
	agreed   int             // frames whose checksums were compared
}

// spectatorPartitions runs two players (20 ms apart) and a spectator of
// p0 over a link of link both ways, and cuts the spectator off its host
// for cut, rounds times, 6 s apart.
// A benchmark (b set) times the cuts alone, and does not compare
// checksums meanwhile.
func spectatorPartitions(t testing.TB, b *testing.B, seed uint64, link local.Link, cut time.Duration, rounds int) partitionFigures {
	c := feedCluster(t, seed, local.Link{Latency: 10 * time.Millisecond}, 0, nil)
	spec := c.joinLate("s", nil)
	require.NoError(t, c.net.SetLink("p0", "s", link))
	require.NoError(t, c.net.SetLink("s", "p0", link))
	host := c.nodes[0].p
	trail := func() int { return int(host.ConfirmedFrame() - spec.s.Frame() + 1) }
	c.until(10*time.Second, "the spectator running", func() bool { return spec.s.Frame() > 60 })
	var fig partitionFigures
	var steady []int
	for range 5 * 60 {
		c.run(time.Second / 60)
		steady = append(steady, trail())
	}
	slices.Sort(steady)
	fig.before, fig.worst = steady[len(steady)*9/10], steady[len(steady)-1]
	sent, _ := host.PeerStats("s")
	agreed := c.agreed()
	fig.toLive, fig.trailing = make([]time.Duration, 0, rounds), make([]int, 0, rounds)
	if b != nil {
		c.timed(b)
		defer b.StopTimer()
	}
	for range rounds {
		c.net.Partition("p0", "s")
		c.run(cut)
		c.net.Heal("p0", "s")
		healed := c.clock.Now()
		at := c.until(10*time.Second, "the spectator live again", func() bool { return trail() <= fig.before })
		fig.toLive = append(fig.toLive, at.Sub(healed))
		most := 0
		for c.clock.Now().Sub(healed) < 6*time.Second {
			c.run(time.Second / 60)
			most = max(most, trail())
		}
		fig.trailing = append(fig.trailing, most)
	}
	st, _ := host.PeerStats("s")
	fig.bytes = st.BytesSent - sent.BytesSent
	fig.agreed = c.agreed() - agreed
	return fig
}

// A spectator 200 ms one way from its host over a link losing 10% of its
// datagrams, cut off for 1.5 s (90 frames), is live again within 0.5 s of
// the cut's end, and trails no more than it did before: its host resends
// every frame it has not acknowledged each tick, as the live stream did
// before the bulk feed, rather than each frame once and a lost one an
// acknowledgement later (issue 29 goal 5): 0.23 to 0.25 s, then at most
// 18 frames behind. Before (the bulk feed from 32 frames behind) it took
// 0.70 to 1.57 s, and trailed up to 41 frames after (the bulk feed sat on
// a hole while the frames behind it arrived). The spectator agrees with
// the players on every frame throughout. (Checked to fail: with the bulk
// feed from 32 frames behind, 0.70 s; with one live Input a tick, a
// datagram lost past its 128 frames trailed 29.)
func TestSpectatorPartitionLossy(t *testing.T) {
	fig := spectatorPartitions(t, nil, 95, local.Link{Latency: 200 * time.Millisecond, Loss: 0.1}, 1500*time.Millisecond, 5)
	t.Logf("200 ms one way, 10%% loss, 1.5 s cut: trailed %d frames before (at most %d); live again after %v, then trailed at most %v frames; host sent %d bytes",
		fig.before, fig.worst, fig.toLive, fig.trailing, fig.bytes)
	require.Greater(t, fig.agreed, 5*6*60/2, "the spectator's frames were compared with the players'")
	for i, d := range fig.toLive {
		require.LessOrEqual(t, d, 500*time.Millisecond, "cut %d: live again within 0.5 s of its end", i)
		require.LessOrEqual(t, fig.trailing[i], 21, "cut %d: trailing as before the bulk feed (21 frames: 0.35 s)", i)
	}
}

// joinFigures is what a spectator joining a match late over a link cost:
// the time from its handshake to live (past the frame it joined at,
// Behind at most 4 frames, not CatchingUp), and the bytes its host sent it meanwhile.
type joinFigures struct {
	toLive time.Duration
	bytes  uint64
}

// spectatorJoin runs two players (20 ms apart) for frames frames, then
// adds a spectator of p0 over a link of link both ways and runs until it
// is live.
// A benchmark (b set) times the catch-up alone.
func spectatorJoin(t testing.TB, b *testing.B, seed uint64, link local.Link, frames int) joinFigures {
	c := feedCluster(t, seed, local.Link{Latency: 10 * time.Millisecond}, frames+1000, nil)
	c.keepSums, c.noSums = false, true
	require.NoError(t, c.net.SetLink("p0", "s", link))
	require.NoError(t, c.net.SetLink("s", "p0", link))
	c.frames(frames, time.Hour)
	spec := c.joinLate("s", nil)
	c.until(10*time.Second, "the spectator running", func() bool { return spec.s.running })
	if b != nil {
		c.timed(b)
		defer b.StopTimer()
	}
	start := c.clock.Now()
	at := c.until(time.Minute, "the spectator live", func() bool {
		return int(spec.s.Frame()) > frames && !spec.s.CatchingUp() && spec.s.Behind() <= 4
	})
	st, _ := c.nodes[0].p.PeerStats("s")
	return joinFigures{toLive: at.Sub(start), bytes: st.BytesSent}
}

// A spectator joining 2,300 and 36,000 frames into a match over the link
// of TestSpectatorPartitionLossy (200 ms one way, 10% loss) is fed in
// bulk: the live stream taking over 256 frames from live, not 32, costs
// the far joiner nothing measurable.
func TestSpectatorJoinLossy(t *testing.T) {
	for _, frames := range []int{2300, 36000} {
		fig := spectatorJoin(t, nil, 96, local.Link{Latency: 200 * time.Millisecond, Loss: 0.1}, frames)
		t.Logf("200 ms one way, 10%% loss, joined at frame %d: live after %v, host sent %d bytes", frames, fig.toLive, fig.bytes)
		require.Less(t, fig.toLive, 20*time.Second)
	}
}

// timed starts b's timer, with the cluster's allocations that are not
// the session's left out: no checksums compared, room for every event.
func (c *p2pCluster) timed(b *testing.B) {
	c.noSums = true
	for _, n := range c.nodes {
		n.events = make([]rollnet.Event, 0, 1<<14)
	}
	b.StartTimer()
}

// BenchmarkSpectatorPartition is TestSpectatorPartitionLossy's figures
// for the bench report, on the fake clock (so the same each run): after
// each of 3 cuts of 1.5 s, the time to be live again and the most frames
// it trailed from then on, beside the most it trailed before any cut; and
// the bytes its host sent it a cut. An op is a whole run, timed (and its
// allocations counted) over the cuts and what follows them.
func BenchmarkSpectatorPartition(b *testing.B) {
	var fig partitionFigures
	for b.Loop() {
		b.StopTimer()
		fig = spectatorPartitions(b, b, 95, local.Link{Latency: 200 * time.Millisecond, Loss: 0.1}, 1500*time.Millisecond, 3)
		b.StartTimer()
	}
	b.ReportMetric(float64(slices.Max(fig.toLive).Nanoseconds()), "ns-live-again")
	b.ReportMetric(float64(slices.Max(fig.trailing)), "trail-frames")
	b.ReportMetric(float64(fig.worst), "trail-frames-before")
	b.ReportMetric(float64(fig.bytes)/3, "B/cut")
}

// BenchmarkSpectatorJoinLossy is TestSpectatorJoinLossy's far joiner for
// the bench report, on the fake clock: a spectator joining 36,000 frames
// in over 200 ms one way and 10% loss, its time to live and the bytes its
// host sent it. An op is a whole run, timed (and its allocations
// counted) from the spectator's handshake to live.
func BenchmarkSpectatorJoinLossy(b *testing.B) {
	var fig joinFigures
	for b.Loop() {
		b.StopTimer()
		fig = spectatorJoin(b, b, 96, local.Link{Latency: 200 * time.Millisecond, Loss: 0.1}, 36000)
		b.StartTimer()
	}
	b.ReportMetric(float64(fig.toLive.Nanoseconds()), "ns-to-live")
	b.ReportMetric(float64(fig.bytes), "B/join")
}

// The live stream allocates nothing: a host sending a spectator 200
// frames behind two Inputs a tick, and both ends' ticks while a spectator
// cut off comes back on it.
func TestAllocsSpectatorLive(t *testing.T) {
	skipUnderRace(t)
	c := feedCluster(t, 97, local.Link{Latency: 10 * time.Millisecond}, 0, nil)
	spec := c.joinLate("s", nil)
	c.frames(600, time.Minute)
	c.noSums = true
	for _, n := range c.nodes {
		n.events = make([]rollnet.Event, 0, 1<<14)
	}
	p := c.nodes[0].p
	i, ok := p.ep.Lookup("s")
	require.True(t, ok)
	l := p.ep.Links()[i]
	c0 := min(p.core.ConfirmedFrame(), p.core.Frame()-1)
	sent := c.net.LinkStats("p0", "s").Sent
	runs := 100
	allocs.RequireZero(t, runs, func() {
		l.Acked = c0 - 200
		p.flush()
	}, "the host's live stream")
	require.False(t, p.feeds[0].on, "the live stream, not the bulk feed")
	// Two Inputs and a keepalive or quality report a flush at most; at
	// least the two Inputs.
	require.GreaterOrEqual(t, int(c.net.LinkStats("p0", "s").Sent-sent), 2*(runs+1))
	c.run(time.Second)
	c.net.Partition("p0", "s")
	c.run(1500 * time.Millisecond)
	c.net.Heal("p0", "s")
	behind := p.core.ConfirmedFrame() - l.Acked
	allocs.RequireZero(t, 30, func() { c.run(time.Second / 60) }, "the players' and the spectator's ticks")
	require.Greater(t, int(behind), 64, "the cut left the spectator behind")
	require.Less(t, spec.s.Behind(), 8, "live again")
	require.Greater(t, int(spec.s.Frame()), int(c0)+100)
}

// holdTransport is a spectator's transport that acknowledges, always,
// gap frames short of the host's newest confirmed frame (as the host's
// newest Input says it), and counts the bytes it receives.
type holdTransport struct {
	transport.Transport
	gap  int32
	c    int32 // the host's newest confirmed frame
	in   int
	ins  []byte
	stat []wire.PeerStatus
}

func (h *holdTransport) Send(to transport.Peer, b []byte) error {
	if len(b) > 0 && wire.Type(b[0]&0x0f) == wire.TypeInputAck && h.c > h.gap {
		if m, _, err := wire.ParseInputAck(b); err == nil {
			m.Ack = min(m.Ack, h.c-h.gap)
			b = m.Append(nil)
		}
	}
	return h.Transport.Send(to, b)
}

func (h *holdTransport) Receive(buf []byte) (int, transport.Peer, error) {
	n, from, err := h.Transport.Receive(buf)
	if err == nil && n > 0 {
		h.in += n
		m := wire.Input{Size: 2}
		if wire.Type(buf[0]&0x0f) == wire.TypeInput {
			if _, perr := wire.ParseInput(buf[:n], &m, h.ins, h.stat); perr == nil {
				h.c = max(h.c, m.Ack)
			}
		}
	}
	return n, from, err
}

// What a spectator may cost its host on the live stream: one that keeps
// its acknowledgement just inside liveGap (250 frames behind, forever)
// gets 2 Inputs a tick, 33 kB/s here and never more than 2 full packets a
// tick (144 kB/s), where an honest one costs 1.4 kB/s. On the bulk feed
// from 32 frames it cost 1.0 kB/s (each frame once, then go-backs): the
// live stream's redundancy is what a spectator cut off for a few seconds
// on a lossy link needs, and what it costs when the spectator lies.
func TestSpectatorLiveCost(t *testing.T) {
	rate := func(gap int32) float64 {
		c := feedCluster(t, 98, local.Link{Latency: 20 * time.Millisecond}, 0, nil)
		c.keepSums, c.noSums = false, true
		h := &holdTransport{gap: gap, ins: make([]byte, wire.MaxFrames*4), stat: make([]wire.PeerStatus, 2)}
		c.joinLate("s", func(tr transport.Transport) transport.Transport {
			h.Transport = tr
			return h
		})
		c.frames(600, time.Minute)
		in := h.in
		c.run(20 * time.Second)
		return float64(h.in-in) / 20
	}
	honest, held := rate(1<<30), rate(250)
	t.Logf("the host sent a spectator holding its ack 250 frames behind %.0f B/s; an honest one %.0f B/s", held, honest)
	require.Greater(t, held, 10*honest, "the spectator held its ack")
	require.Less(t, held, float64(liveDatagrams*wire.MaxPacket*60+2000), "at most 2 packets a tick, and a few reports")
}
