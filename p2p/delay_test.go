package p2p

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// delayLink is the adaptive delay tests' network at latency one way: 2 ms
// of jitter, 1% loss.
func delayLink(latency time.Duration) local.Link {
	return local.Link{Latency: latency, Jitter: 2 * time.Millisecond, Loss: 0.01}
}

// delayCluster is players and a spectator over delayLink(20 ms), the
// delay following the network within [1, 14] from 2 when follow is set,
// fixed at 2 otherwise.
func delayCluster(t testing.TB, players int, seed uint64, follow bool) *p2pCluster {
	return newCluster(t, clusterOpts{players: players, spectators: 1, seed: seed, mash: 0.3, link: delayLink(20 * time.Millisecond),
		cfg: session.Config[uint16]{InputDelay: 2, Capacity: 32},
		mutate: func(i int, cfg *Config[uint16]) {
			if follow {
				cfg.MinInputDelay, cfg.MaxInputDelay = 1, 14
			}
		}})
}

// delayPhase runs c for d, one second at a time, and returns each
// second's most rollbacks of any player and the first time every player's
// delay met ok (0 if never).
func delayPhase(c *p2pCluster, d time.Duration, ok func(delay int) bool) (perSecond []int, reached time.Duration) {
	start := c.clock.Now()
	before := make([]int, len(c.nodes))
	for i, n := range c.nodes {
		if n.p != nil {
			before[i] = n.p.Stats().Rollbacks
		}
	}
	reached = -1
	for s := time.Duration(0); s < d; s += time.Second {
		for range 60 {
			c.run(time.Second / 60)
			all := true
			for _, n := range c.nodes {
				if n.p != nil && !ok(n.p.dl.now) {
					all = false
				}
			}
			if all && reached < 0 {
				reached = c.clock.Now().Sub(start)
			}
		}
		most := 0
		for i, n := range c.nodes {
			if n.p != nil {
				r := n.p.Stats().Rollbacks
				most = max(most, r-before[i])
				before[i] = r
			}
		}
		perSecond = append(perSecond, most)
	}
	return perSecond, reached
}

// TestP2PDelayFollowsNetwork: two players and a spectator; the link's
// latency moves from 20 ms to 150 ms one way and back mid-match, on fake
// time with jitter and loss. The delay follows within 2 s each way: to a
// delay that covers 150 ms (9 frames or more at 60 fps), and back to 3
// frames or fewer. Rollbacks per second (the most of either player) stay
// at most 3 in every second from 2 s after each move, where a fixed delay
// of 2 frames rolls back 10 times a second or more at 150 ms. Every peer
// reports each change at the same frame, every confirmed frame's checksum
// agrees (the cluster compares them), and the spectator follows.
func TestP2PDelayFollowsNetwork(t *testing.T) {
	const settled = 3
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			c := delayCluster(t, 2, seed, true)
			c.frames(120, 10*time.Second)
			low, _ := delayPhase(c, 4*time.Second, func(int) bool { return true })
			require.Equal(t, 2, c.nodes[0].p.dl.now, "20 ms one way, 40 ms and the loops' ticks a round trip: two frames")

			require.NoError(t, c.net.SetDefaultLink(delayLink(150*time.Millisecond)))
			high, up := delayPhase(c, 8*time.Second, func(d int) bool { return time.Duration(d)*time.Second/60 >= 150*time.Millisecond })
			require.NoError(t, c.net.SetDefaultLink(delayLink(20*time.Millisecond)))
			back, down := delayPhase(c, 8*time.Second, func(d int) bool { return d <= 3 })
			t.Logf("seed %d: delay up in %v, down in %v; rollbacks/s at 20 ms %v, at 150 ms %v, back at 20 ms %v",
				seed, up, down, low, high, back)
			require.Positive(t, up, "the delay did not follow 150 ms")
			require.LessOrEqual(t, up, 2*time.Second)
			require.Positive(t, down, "the delay did not come back")
			require.LessOrEqual(t, down, 2*time.Second)
			for _, ps := range [][]int{low, high[2:], back[2:]} {
				for _, n := range ps {
					require.LessOrEqual(t, n, settled, "rollbacks per second once settled: %v %v %v", low, high, back)
				}
			}

			// Every player saw the same changes at the same frames.
			var first []rollnet.Event
			for i, n := range c.nodes[:2] {
				got := n.kinds(rollnet.EventDelayChanged)
				require.NotEmpty(t, got)
				if i == 0 {
					first = got
					continue
				}
				require.Equal(t, first, got, "%s's changes", n.name)
			}
			for i, e := range first[1:] {
				require.Equal(t, first[i].Frames, e.Count, "changes chain")
			}
			// The spectator follows: live, every checksum compared agreed.
			spec := c.nodes[2]
			require.Greater(t, int(spec.s.Frame()), int(c.nodes[0].p.Frame())-60, "the spectator is live")
			require.Greater(t, c.agreed(), 1000)
		})
	}
}

// TestP2PFixedDelayRollsBack: the same move to 150 ms with the delay
// fixed at 2 frames (the default): the rollbacks the adaptive test's bound
// keeps out, and no change.
func TestP2PFixedDelayRollsBack(t *testing.T) {
	c := delayCluster(t, 2, 1, false)
	c.frames(120, 10*time.Second)
	require.NoError(t, c.net.SetDefaultLink(delayLink(150*time.Millisecond)))
	high, _ := delayPhase(c, 6*time.Second, func(int) bool { return true })
	t.Logf("fixed delay, rollbacks/s at 150 ms: %v", high)
	for _, n := range high[2:] {
		require.GreaterOrEqual(t, n, 10)
	}
	require.Empty(t, c.nodes[0].kinds(rollnet.EventDelayChanged))
}

// TestP2PDelayThreePlayers: three players and a spectator, one peer's
// links slow (150 ms to and from p2): the leader takes the most any peer
// wishes, every peer changes at the same frames, the checksums agree.
func TestP2PDelayThreePlayers(t *testing.T) {
	c := delayCluster(t, 3, 7, true)
	c.frames(120, 10*time.Second)
	for _, other := range []string{"p0", "p1"} {
		require.NoError(t, c.net.SetLink(other, "p2", delayLink(150*time.Millisecond)))
		require.NoError(t, c.net.SetLink("p2", other, delayLink(150*time.Millisecond)))
	}
	_, up := delayPhase(c, 6*time.Second, func(d int) bool { return d >= 9 })
	require.Positive(t, up)
	require.LessOrEqual(t, up, 2*time.Second)
	first := c.nodes[0].kinds(rollnet.EventDelayChanged)
	require.NotEmpty(t, first)
	for _, n := range c.nodes[1:3] {
		require.Equal(t, first, n.kinds(rollnet.EventDelayChanged), n.name)
	}
	require.Greater(t, c.agreed(), 300)
}

// TestP2PDelayConfig: the bounds are checked, and a peer with other bounds
// (or a fixed delay) is refused at the handshake.
func TestP2PDelayConfig(t *testing.T) {
	_, nw := testkit.NewNet(t, local.Config{Seed: 3})
	ep, err := nw.Endpoint("p0")
	require.NoError(t, err)
	for _, b := range [][2]int{{3, 8}, {0, 1}, {-1, 4}, {1, 256}, {1, 40}} {
		_, err := New[p2pWorld](Config[uint16]{Session: session.Config[uint16]{Players: 2, InputDelay: 2, Capacity: 32},
			Remote: []transport.Peer{"", "p1"}, MinInputDelay: b[0], MaxInputDelay: b[1]}, ep, simP2P)
		require.ErrorIs(t, err, rollnet.ErrConfig, "bounds %v", b)
	}
	for _, other := range [][2]int{{0, 0}, {1, 8}} {
		c := newCluster(t, clusterOpts{players: 2, seed: 3, link: delayLink(20 * time.Millisecond),
			cfg: session.Config[uint16]{InputDelay: 2, Capacity: 32},
			mutate: func(i int, cfg *Config[uint16]) {
				cfg.MinInputDelay, cfg.MaxInputDelay = 1, 14
				if i == 1 {
					cfg.MinInputDelay, cfg.MaxInputDelay = other[0], other[1]
				}
			}})
		var se *rollnet.SyncError
		for range 600 {
			c.clock.Advance(time.Second / 60)
			for _, n := range c.nodes {
				_ = n.p.AddLocalInput(n.locals[0], 0)
				_ = n.p.AdvanceFrame()
			}
			if errors.As(c.nodes[0].p.ep.Err(), &se) {
				break
			}
		}
		require.ErrorAs(t, c.nodes[0].p.ep.Err(), &se, "bounds %v", other)
		require.Equal(t, link.ReasonSettings, se.Reason)
	}
}

// TestP2PDelayLocalInput: exactly what local input does when the delay
// changes, checked frame by frame against what the other peer received.
// The delay is made to grow by 3 frames (the leader then brings it back,
// one step every shrinkEvery ticks, since 20 ms needs no more). Growing by k
// repeats the newest input given for the k frames between; each shrinking
// step drops that tick's input; an input given again in the same tick
// replaces the first; every frame gets exactly one input.
func TestP2PDelayLocalInput(t *testing.T) {
	c := delayCluster(t, 2, 4, true)
	c.frames(60, 10*time.Second)
	n := c.nodes[0]
	n.paused = true // driven by hand below
	p := n.p
	d0 := p.dl.now
	p.dl.prev, p.dl.cur = p.dl.cur, delayChange{from: d0, to: d0 + 3, at: p.Frame() + 3}
	prevT := p.added[0]
	expect := map[rollnet.Frame]uint16{}
	delay := p.dl.now
	var evs []rollnet.Event
	first := prevT + 1
	drops := 0
	for k := range 120 {
		v := uint16(1000 + k)
		f := p.Frame()
		require.NoError(t, p.AddLocalInput(0, v+5000))
		require.NoError(t, p.AddLocalInput(0, v))
		for {
			err := p.AdvanceFrame()
			if err == nil {
				break
			}
			require.ErrorIs(t, err, session.ErrPredictionLimit)
			c.run(time.Second / 60)
			require.NoError(t, p.AddLocalInput(0, v))
		}
		c.run(time.Second / 60)
		evs = p.Events(evs)
		for _, e := range evs {
			if e.Kind == rollnet.EventDelayChanged && e.Frame == f {
				require.Equal(t, delay, e.Count)
				delay = e.Frames
			}
		}
		tgt := f + rollnet.Frame(delay)
		if tgt <= prevT {
			drops++
			continue
		}
		for g := prevT + 1; g < tgt; g++ {
			expect[g] = expect[prevT]
		}
		expect[tgt] = v
		prevT = tgt
	}
	require.Less(t, delay, d0+3, "the leader brought it back down")
	require.Equal(t, d0+3-delay, drops, "one dropped tick per shrinking step")
	c.run(time.Second) // p1 hears the rest
	other := c.nodes[1].p
	for g := first; g <= prevT; g++ {
		want, ok := expect[g]
		if g == first {
			continue // the input given before the loop
		}
		require.True(t, ok, "frame %d has an input", g)
		b, ok := other.hist.get(g, 0)
		require.True(t, ok, "p1 has frame %d", g)
		require.Equal(t, want, uint16(b[0])|uint16(b[1])<<8, "frame %d", g)
	}
}

// TestP2PDelayAllocs: a tick of a match whose delay follows the network,
// through a change each way, allocates nothing.
func TestP2PDelayAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	c := delayCluster(t, 2, 5, true)
	c.frames(120, 10*time.Second)
	c.noSums = true
	for _, n := range c.nodes {
		n.events = make([]rollnet.Event, 0, 1<<14)
	}
	require.NoError(t, c.net.SetDefaultLink(delayLink(150*time.Millisecond)))
	allocs.RequireZero(t, 240, func() { c.run(time.Second / 60) }, "up")
	require.NoError(t, c.net.SetDefaultLink(delayLink(20*time.Millisecond)))
	allocs.RequireZero(t, 240, func() { c.run(time.Second / 60) }, "down")
	require.GreaterOrEqual(t, len(c.nodes[0].kinds(rollnet.EventDelayChanged)), 2, "the delay changed both ways")
}

// TestP2PDelayRejoin: a player whose process restarts comes back into a
// match whose delay grew since it began (its new session starts from the
// match's first delay, replays, plays from the agreed R, then takes the
// match's delay from the leader at its next tick); the checksums agree
// throughout and its delay ends equal to the others'.
func TestP2PDelayRejoin(t *testing.T) {
	c := archiveCluster(t, 3, 41, 0, func(i int, cfg *Config[uint16]) { cfg.MinInputDelay, cfg.MaxInputDelay = 1, 14 })
	c.frames(120, 10*time.Second)
	require.NoError(t, c.net.SetDefaultLink(delayLink(100*time.Millisecond)))
	c.run(3 * time.Second)
	grown := c.nodes[0].p.dl.now
	require.Greater(t, grown, 4, "100 ms one way")
	n := c.nodes[2]
	q := c.restart(n, 3*time.Second)
	r := c.rejoined(n, 2)
	c.frames(int(r)+300, 30*time.Second)
	c.noDesync()
	require.Equal(t, c.nodes[0].p.dl.now, q.dl.now, "the rejoined player's delay is the match's")
	require.Equal(t, c.nodes[0].p.dl.now, c.nodes[1].p.dl.now)
	t.Logf("grown to %d, rejoined at %d, delay now %d; %v", grown, r, q.dl.now, n.kinds(rollnet.EventDelayChanged))
}
