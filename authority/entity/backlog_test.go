package entity

import (
	"cmp"
	"testing"

	"github.com/stretchr/testify/require"
)

// slowLink is a host's link to one client, one tick at a time: its
// updates queue for a bottleneck of rate bytes a tick (28 bytes of header
// each), up to 64 KiB as a transport's bulk path holds them (past that
// one is refused), then travel latency ticks; acks travel latency ticks.
type slowLink struct {
	rate, latency int
	queue         []sent // at the bottleneck, oldest first
	queued        int    // their bytes
	credit        int
	wire          []sent // past it, by arrival
	up            []sent
	now           int // ticks run
	move          int // a 1/move of the entities move each tick (0: 4)
}

type sent struct {
	at, left int // the tick it was sent, the tick it left the bottleneck
	b        []byte
}

const bulkQueue = 64 << 10

// run plays ticks more ticks of a world whose every entity is relevant
// to the one client and a quarter of which move each tick, over the link;
// it returns the longest an update that arrived after the first warm of
// them waited at the bottleneck, in ticks, and the bytes that arrived
// then.
func (l *slowLink) run(t *testing.T, h *Host, w *world, id int, c *Client, ticks, warm int) (longest, arrived int) {
	buf, abuf := make([]byte, 0, 1500), make([]byte, 0, 64)
	from := l.now + warm
	for range ticks {
		l.now++
		tick := l.now
		w.moveSome(tick, cmp.Or(l.move, 4))
		h.Tick(w.slots)
		for len(l.up) > 0 && l.up[0].at+l.latency <= tick {
			require.NoError(t, h.Receive(id, l.up[0].b))
			l.up = l.up[1:]
		}
		if b := h.Append(buf[:0], id); len(b) > 0 && l.queued+len(b) <= bulkQueue {
			l.queue = append(l.queue, sent{at: tick, b: append([]byte(nil), b...)})
			l.queued += len(b)
		}
		l.credit += l.rate
		for len(l.queue) > 0 && l.credit >= len(l.queue[0].b)+overhead {
			s := l.queue[0]
			l.queue = l.queue[1:]
			l.queued -= len(s.b)
			l.credit -= len(s.b) + overhead
			s.left = tick
			l.wire = append(l.wire, s)
		}
		if len(l.queue) == 0 {
			l.credit = min(l.credit, l.rate) // an idle link saves nothing
		}
		for len(l.wire) > 0 && l.wire[0].left+l.latency <= tick {
			s := l.wire[0]
			l.wire = l.wire[1:]
			require.NoError(t, c.Receive(s.b))
			if tick >= from {
				longest = max(longest, s.left-s.at)
				arrived += len(s.b)
			}
		}
		if a := c.AppendAck(abuf[:0]); len(a) > 0 {
			l.up = append(l.up, sent{at: tick, b: append([]byte(nil), a...)})
		}
	}
	return longest, arrived
}

// TestSlowLinkBoundsTheQueue: over a link of 6,000 B/s, slower than the
// client's budget of 16,000, the host's updates would queue until the
// transport's 64 KiB are full (11 s at that rate: 732 ticks on the code
// before the hold-back). The host sees its updates wait in its acks and
// holds back: an update waits at most about backlogDelay and one update's
// time on the link, and the link stays busy. When the path gets longer
// (its latency 3 ticks, then 30 each way), the host learns the new floor
// within two floor windows and the bound holds again.
func TestSlowLinkBoundsTheQueue(t *testing.T) {
	w := newWorld(1024)
	w.radius = 1000
	w.viewers = [][2]int16{{0, 0}}
	h, err := NewHost(HostConfig{Capacity: 1024, Size: 4, Encode: w.encode, Interest: w.interest, BytesPerSecond: 16000, MTU: 300})
	require.NoError(t, err)
	id := h.AddClient()
	c, err := NewClient(ClientConfig{Capacity: 1024, Size: 4})
	require.NoError(t, err)
	l := &slowLink{rate: 100, latency: 3}
	bound := int(h.backlogDelay()) + 2*(300+overhead)/l.rate + 2
	check := func(ticks, warm int) {
		t.Helper()
		held := h.Stats(id).HeldBack
		longest, arrived := l.run(t, h, w, id, c, ticks, warm)
		perSec := arrived * 60 / (ticks - warm)
		t.Logf("latency %d: longest wait at the bottleneck %d ticks (bound %d), %d B/s arrived of %d, held back %d ticks, round trip %.1f ticks",
			l.latency, longest, bound, perSec, l.rate*60, h.Stats(id).HeldBack-held, h.Stats(id).RTT)
		require.LessOrEqual(t, longest, bound)
		require.Greater(t, h.Stats(id).HeldBack, held)
		require.GreaterOrEqual(t, perSec, l.rate*60*8/10, "the link stays busy (bytes without headers)")
	}
	check(2400, 600)
	l.latency = 30
	check(3000, 1800)
	require.Zero(t, c.Stats().Malformed)
}

// TestFastLinkIsNotHeldBack: over a link faster than the budget the host
// never holds back, with loss and reordering (the pair's link).
func TestFastLinkIsNotHeldBack(t *testing.T) {
	w := newWorld(512)
	p := newPair(t, w, 2, HostConfig{BytesPerSecond: 64000, Linger: 10})
	p.buf = make([]byte, 0, 1500)
	p.loss = 5
	for i := range 600 {
		w.moveSome(i, 4)
		p.tick()
	}
	for _, id := range p.ids {
		require.Zero(t, p.host.Stats(id).HeldBack)
	}
}

// TestBurstAfterQuietIsNotHeldBack: a world quiet for 20 s (the host sent
// little, so its acks measured a low rate) that bursts into motion over a
// link faster than the budget and a long round trip: nothing queues, so
// the host sends its whole budget at once, holding nothing back.
func TestBurstAfterQuietIsNotHeldBack(t *testing.T) {
	w := newWorld(1024)
	w.radius = 1000
	w.viewers = [][2]int16{{0, 0}}
	h, err := NewHost(HostConfig{Capacity: 1024, Size: 4, Encode: w.encode, Interest: w.interest, BytesPerSecond: 16000})
	require.NoError(t, err)
	id := h.AddClient()
	c, err := NewClient(ClientConfig{Capacity: 1024, Size: 4})
	require.NoError(t, err)
	l := &slowLink{rate: 1000, latency: 15, move: 1000}
	l.run(t, h, w, id, c, 1500, 0)
	l.move = 4
	before := h.Stats(id).Bytes
	l.run(t, h, w, id, c, 120, 0)
	sent := h.Stats(id).Bytes - before
	t.Logf("sent %d B in the 2 s after the burst, held back %d ticks", sent, h.Stats(id).HeldBack)
	require.Zero(t, h.Stats(id).HeldBack)
	require.Greater(t, sent, uint64(16000*2*8/10))
}
