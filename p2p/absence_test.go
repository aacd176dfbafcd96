package p2p

import (
	"errors"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// absenceLink is the absence tests' network: 30 ms ± 5 ms one way, 3%
// loss, 5% of datagrams reordered.
var absenceLink = local.Link{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.03, Reorder: 0.05}

// absenceWatch records, per node, the newest frame simulated while the
// node has not yet resumed from a wait (from the drop until its awaiting
// ends). A wait may simulate nothing: the test calls look after each tick.
type absenceWatch struct {
	c    *p2pCluster
	on   []bool
	seen []bool // the node awaited the player
	top  []rollnet.Frame
	pre  []rollnet.Frame // the newest simulated before the wait was agreed
}

// look notes the nodes that await a player now.
func (w *absenceWatch) look() {
	for i, n := range w.c.nodes[:len(w.on)] {
		if n.p.awaiting != 0 {
			w.seen[i] = true
		}
	}
}

func (w *absenceWatch) sim(i int) func(*p2pWorld, []uint16, rollnet.Frame) {
	return func(s *p2pWorld, in []uint16, f rollnet.Frame) {
		if w.on[i] {
			n := w.c.nodes[i]
			if n.p.awaiting != 0 {
				w.seen[i] = true
			}
			if w.seen[i] && n.p.awaiting == 0 {
				w.on[i] = false // resumed
			} else {
				w.top[i] = max(w.top[i], f)
				if !w.seen[i] {
					w.pre[i] = max(w.pre[i], f)
				}
			}
		}
		simP2P(s, in, f)
	}
}

// absenceCluster is three players and a spectator over absenceLink under
// policy a, after 240 frames.
func absenceCluster(t *testing.T, seed uint64, a rollnet.Absence, window time.Duration) (*p2pCluster, *absenceWatch) {
	w := &absenceWatch{on: make([]bool, 3), seen: make([]bool, 3), top: make([]rollnet.Frame, 3), pre: make([]rollnet.Frame, 3)}
	c := newCluster(t, clusterOpts{players: 3, spectators: 1, seed: seed, mash: 0.3, link: absenceLink,
		cfg: session.Config[uint16]{InputDelay: 2, Capacity: 32},
		net: rollnet.NetConfig{RejoinWindow: window},
		sim: w.sim,
		mutate: func(i int, cfg *Config[uint16]) {
			cfg.SpectatorArchive = 3600
			cfg.Absence = a
		}})
	w.c = c
	c.frames(240, 20*time.Second)
	return c, w
}

// awaitedAt checks every live player node saw kind for player at one frame,
// and returns it.
func (c *p2pCluster) awaitedAt(kind rollnet.EventKind, player int) rollnet.Frame {
	c.t.Helper()
	stop := rollnet.NoFrame
	for _, n := range c.nodes {
		if n.p == nil || n.paused {
			continue
		}
		e, ok := n.first(kind)
		require.True(c.t, ok, "%s saw no %v: %v", n.name, kind, n.events)
		require.Equal(c.t, player, e.Player)
		if stop == rollnet.NoFrame {
			stop = e.Frame
		}
		require.Equal(c.t, stop, e.Frame, "%s: %v at another frame", n.name, kind)
	}
	return stop
}

// TestP2PAbsenceFreeze: three players and a spectator under AbsenceFreeze,
// over a lossy, reordering link on fake time; player 2's process dies and
// a new one rejoins 4 s later. Every peer stops at one agreed frame P and
// none simulates P while the player is away (the spectator follows); the
// peers resume within one round trip of the player playing again, and
// every confirmed frame's checksum agrees throughout (the cluster checks).
func TestP2PAbsenceFreeze(t *testing.T) {
	for _, seed := range []uint64{41, 42, 43} {
		c, w := absenceCluster(t, seed, rollnet.AbsenceFreeze, 0)
		if seed == 43 { // a game that ignores wait recommendations runs into the prediction window
			for _, n := range c.nodes[:3] {
				n.follow = false
			}
		}
		away := c.nodes[2]
		spec := c.nodes[3]
		for i := range w.on {
			w.on[i] = true
		}
		tok, ok := away.p.RejoinToken()
		require.True(t, ok)
		cfg := away.p.rj.restart.cfg
		// Seed 41: its transport closes (the others hear it go at once);
		// else its process dies silently: it is dropped after
		// DisconnectTimeout, 5 s in which the others predict as far as
		// the prediction window (and, seed 43, wait recommendations) let
		// them.
		silent := seed != 41
		if silent {
			for _, n := range c.nodes {
				if n != away {
					c.net.Partition(away.name, n.name)
				}
			}
		} else {
			require.NoError(t, away.ep.Close())
		}
		away.paused = true
		for f := away.checked - 200; f <= away.checked; f++ {
			c.sums.Forget(f)
		}
		c.until(15*time.Second, "awaited everywhere", func() bool {
			w.look()
			for _, n := range c.nodes[:2] {
				if _, ok := n.first(rollnet.EventPlayerAwaited); !ok {
					return false
				}
			}
			return true
		})
		stop := c.awaitedAt(rollnet.EventPlayerAwaited, 2)
		frozen := c.awaitedAt(rollnet.EventPlayerDisconnected, 2)
		require.Greater(t, stop, frozen, "the stop lies past the frozen frame")
		// Away for 4 s: nobody moves past the stop, the spectator neither.
		for range 4 * 60 {
			c.run(time.Second / 60)
			w.look()
			for _, n := range c.nodes[:2] {
				require.LessOrEqual(t, n.p.Frame(), stop, "%s passed the stop", n.name)
				players, at, _ := n.p.Awaited()
				require.Equal(t, uint64(1<<2), players)
				require.Equal(t, stop, at)
			}
			require.LessOrEqual(t, spec.s.Frame(), stop)
		}
		for _, n := range c.nodes[:2] {
			require.Equal(t, stop, n.p.Frame(), "%s waits at the stop", n.name)
			_, _, since := n.p.Awaited()
			require.Greater(t, since, 3*time.Second)
		}
		// It comes back: a new process with its token.
		if silent {
			require.NoError(t, away.ep.Close())
			for _, n := range c.nodes {
				if n != away {
					c.net.Heal(away.name, n.name)
				}
			}
		}
		cfg.Rejoin = tok
		q := c.comeBack(away, cfg)
		away.checked = 1 << 30 // nothing to compare while it replays
		var resumed [2]time.Time
		var backAt time.Time
		c.until(20*time.Second, "resumed everywhere", func() bool {
			if backAt.IsZero() {
				if _, ok := away.first(rollnet.EventPlayerRejoined); ok {
					backAt = c.clock.Now()
				}
			}
			done := true
			for i, n := range c.nodes[:2] {
				if resumed[i].IsZero() && n.p.Frame() > stop {
					resumed[i] = c.clock.Now()
				}
				done = done && !resumed[i].IsZero()
			}
			return done && !backAt.IsZero()
		})
		away.checked = q.Frame() - 8
		r := c.awaitedAt(rollnet.EventPlayerRejoining, 2)
		require.Equal(t, stop, r, "the player comes back at the stop")
		rtt := 2 * (absenceLink.Latency + absenceLink.Jitter)
		for i, n := range c.nodes[:2] {
			d := resumed[i].Sub(backAt)
			t.Logf("seed %d: %s resumed %v after the player played again (stop %d, frozen %d, newest simulated before the agreement %d)", seed, n.name, d, stop, frozen, w.pre[i])
			require.LessOrEqual(t, d, rtt+time.Second/60, "%s resumed within a round trip (and a tick)", n.name)
			require.LessOrEqual(t, w.top[i], stop-1, "%s simulated past the stop", n.name)
			require.LessOrEqual(t, w.pre[i], stop-1, "%s had simulated past the stop before it was agreed", n.name)
			if !n.follow {
				require.GreaterOrEqual(t, w.pre[i], stop-2, "%s: the stop is no further than where prediction stopped it", n.name)
			}
		}
		c.frames(int(stop)+300, 20*time.Second)
		c.noDesync()
		require.Greater(t, spec.s.Frame(), stop+200, "the spectator follows")
	}
}

// TestP2PAbsenceFreezeDropped: the player does not come back: when its
// rejoin window passes, every peer drops it and resumes at the stop with
// its input frozen, all agreeing on every frame.
func TestP2PAbsenceFreezeDropped(t *testing.T) {
	c, w := absenceCluster(t, 44, rollnet.AbsenceFreeze, 2*time.Second)
	for i := range w.on {
		w.on[i] = true
	}
	c.drop(c.nodes[2], 5*time.Second)
	stop := c.awaitedAt(rollnet.EventPlayerAwaited, 2)
	c.until(10*time.Second, "dropped", func() bool {
		w.look()
		for _, n := range c.nodes[:2] {
			if _, ok := n.first(rollnet.EventPlayerDropped); !ok {
				return false
			}
		}
		return true
	})
	require.Equal(t, stop, c.awaitedAt(rollnet.EventPlayerDropped, 2))
	c.frames(int(stop)+300, 20*time.Second)
	for i := range 2 {
		require.LessOrEqual(t, w.top[i], stop-1, "%s simulated past the stop while awaiting", c.nodes[i].name)
		require.LessOrEqual(t, w.pre[i], stop-1, "%s had simulated past the stop before it was agreed", c.nodes[i].name)
		players, at, _ := c.nodes[i].p.Awaited()
		require.Zero(t, players)
		require.Equal(t, rollnet.NoFrame, at)
	}
	c.noDesync()
}

// TestP2PAbsenceForfeit: under AbsenceForfeit every peer stops at the
// agreed frame for good, with one state, and the player may not rejoin.
func TestP2PAbsenceForfeit(t *testing.T) {
	c, _ := absenceCluster(t, 45, rollnet.AbsenceForfeit, 0)
	away := c.nodes[2]
	tok, ok := away.p.RejoinToken()
	require.True(t, ok)
	cfg := away.p.rj.restart.cfg
	c.drop(away, 8*time.Second)
	stop := c.awaitedAt(rollnet.EventPlayerForfeited, 2)
	var want *p2pWorld
	for _, n := range c.nodes[:2] {
		require.Equal(t, stop, n.p.Frame(), n.name)
		require.ErrorIs(t, n.p.AdvanceFrame(), ErrForfeited)
		st, err := n.p.StateAt(stop - 1)
		require.NoError(t, err)
		if want == nil {
			want = st
		}
		require.Equal(t, *want, *st, "%s holds the same state at the stop", n.name)
	}
	require.LessOrEqual(t, c.nodes[3].s.Frame(), stop, "the spectator stops too")
	cfg.Rejoin = tok
	q := c.comeBack(away, cfg)
	away.paused = true // ticked here
	var err error
	c.until(10*time.Second, "refused", func() bool {
		err = q.AdvanceFrame()
		return err != nil && !errors.Is(err, ErrNotSynchronized)
	})
	require.ErrorIs(t, err, ErrRejoinRefused)
	var re *RejoinError
	require.ErrorAs(t, err, &re)
	require.Equal(t, reasonRejoinForfeit, re.Reason)
	for _, n := range c.nodes[:2] {
		require.Equal(t, stop, n.p.Frame(), n.name)
	}
}

// TestP2PAbsenceAllocs: a tick that waits at the stop allocates nothing.
func TestP2PAbsenceAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	c, _ := absenceCluster(t, 46, rollnet.AbsenceFreeze, 0)
	c.drop(c.nodes[2], 7*time.Second)
	c.awaitedAt(rollnet.EventPlayerAwaited, 2)
	for _, n := range c.nodes {
		n.events = make([]rollnet.Event, 0, 1<<14)
	}
	allocs.RequireZero(t, 300, func() { c.run(time.Second / 60) }, "awaiting")
	require.ErrorIs(t, c.nodes[0].p.AdvanceFrame(), ErrAwaiting)
}
