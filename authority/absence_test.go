package authority

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport/local"
)

// absenceLink is the absence tests' link: 30 ± 5 ms each way, 3% loss,
// 5% of datagrams held back 20 ms (reordered).
var absenceLink = local.Link{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.03,
	Reorder: 0.05, ReorderDelay: 20 * time.Millisecond}

// absenceWorld is three clients of a host under policy; the cluster
// records the furthest frame each client and the host simulated.
type absenceWorld struct {
	c      *cluster
	nodes  []*node
	newest map[string]rollnet.Frame // the furthest frame each simulated (Frame()-1)
	events map[string][]rollnet.Event
}

func newAbsenceWorld(t *testing.T, seed uint64, policy rollnet.Absence, grace time.Duration) *absenceWorld {
	c := newCluster(t, clusterOpts{seed: seed, players: 3, link: absenceLink, host: HostConfig[uint16]{Absence: policy, Grace: grace}})
	w := &absenceWorld{c: c, newest: map[string]rollnet.Frame{}, events: map[string][]rollnet.Event{}}
	for i, name := range []string{"a", "b", "c"} {
		w.nodes = append(w.nodes, c.add(name, ClientConfig{}, mash(uint16(i+1), rollnet.Frame(3+i))))
	}
	c.afterClient = func(nd *node) {
		w.newest[nd.name] = max(w.newest[nd.name], nd.c.Frame()-1)
		w.events[nd.name] = nd.c.Events(w.events[nd.name])
	}
	c.run(3 * time.Second)
	for _, nd := range w.nodes {
		require.True(t, nd.c.Synchronized(), nd.name)
	}
	return w
}

// kill cuts client nd off for good (a process killed) and runs until the
// host holds; it returns the stop frame.
func (w *absenceWorld) kill(t *testing.T, nd *node) rollnet.Frame {
	w.c.net.Partition(nd.name, "host")
	nd.cut = true
	for range 120 {
		if w.c.h.Stats().Awaiting > 0 {
			break
		}
		w.c.run(tick)
	}
	st := w.c.h.Stats()
	require.Equal(t, 1, st.Awaiting, "the host awaits %s within 2 s of its silence", nd.name)
	require.Equal(t, nd.c.Stats().First, st.Awaited)
	return st.HoldAt
}

// hasEvent reports whether evs hold an event of kind for player at frame.
func hasEvent(evs []rollnet.Event, kind rollnet.EventKind, player int, frame rollnet.Frame) bool {
	for _, ev := range evs {
		if ev.Kind == kind && ev.Player == player && ev.Frame == frame {
			return true
		}
	}
	return false
}

// Under AbsenceFreeze, a client killed stops the match for every peer at
// one frame no client simulated past (its lease), the others' status
// naming the player awaited and since when, their waits counted as the
// hold's, not the network's; a new process with its token resumes it
// within a round trip, all together, and every host state each client
// takes after is the host's (the cluster checks each against the host's
// checksum of its frame). Three clients over 30 ± 5 ms with 3% loss and
// reordering, on a fake clock.
func TestHostAbsenceFreeze(t *testing.T) {
	w := newAbsenceWorld(t, 61, rollnet.AbsenceFreeze, 0)
	c := w.c
	a, b, cc := w.nodes[0], w.nodes[1], w.nodes[2]
	slot := b.c.Stats().First
	token, ok := b.c.RejoinToken()
	require.True(t, ok)
	waits := a.c.Stats().LeaseWaits + cc.c.Stats().LeaseWaits

	var before [2][2]int64
	for i, nd := range []*node{a, cc} {
		ps, _ := nd.c.PlayoutStats()
		before[i] = [2]int64{ps.Jumps, ps.Stalls}
	}
	stop := w.kill(t, b)
	c.run(2 * time.Second)
	require.Equal(t, stop, c.h.Frame(), "the host holds at the stop")
	for _, nd := range []*node{a, cc} {
		st := nd.c.Stats()
		require.Equal(t, stop, nd.c.Frame(), "%s waits at the stop", nd.name)
		require.Less(t, w.newest[nd.name], stop, "%s simulated no frame from the stop", nd.name)
		require.Equal(t, 1, st.Awaiting, nd.name)
		require.Equal(t, slot, st.Awaited, nd.name)
		require.Equal(t, stop, st.HoldAt, nd.name)
		require.Greater(t, st.HeldFor, 1500*time.Millisecond, nd.name)
		require.Greater(t, st.HoldTicks, uint64(60), nd.name)
		require.True(t, hasEvent(w.events[nd.name], rollnet.EventPlayerAwaited, slot, stop), "%s told: %v", nd.name, w.events[nd.name])
	}
	require.Equal(t, waits, a.c.Stats().LeaseWaits+cc.c.Stats().LeaseWaits, "the hold's waits are not the network's")
	hs := c.h.Stats()
	require.Equal(t, stop, hs.HoldAt)
	require.Greater(t, hs.HeldFor, 1500*time.Millisecond)

	// A new process with the token: the host takes it back (the return),
	// and every client, the new one too, simulates the stop within a
	// round trip (two latencies, their jitter and a reordering's delay)
	// and a tick of it; the host too.
	b2 := c.add("b2", ClientConfig{Rejoin: token}, mash(2, 4))
	var back time.Time
	for range 180 {
		c.run(tick)
		if c.h.Stats().Awaiting == 0 {
			back = c.clock.Now()
			break
		}
	}
	require.False(t, back.IsZero(), "the host took b2 back")
	bound := 2*(absenceLink.Latency+absenceLink.Jitter) + absenceLink.ReorderDelay + tick
	resumed := map[string]time.Duration{}
	for range 600 {
		for _, nd := range []*node{a, cc, b2} {
			if _, ok := resumed[nd.name]; !ok && nd.c.Frame() > stop {
				resumed[nd.name] = c.clock.Now().Sub(back)
			}
		}
		if _, ok := resumed["host"]; !ok && c.h.Frame() > stop {
			resumed["host"] = c.clock.Now().Sub(back)
		}
		if len(resumed) == 4 {
			break
		}
		c.run(time.Millisecond)
	}
	t.Logf("resumed after the return: %v (bound %v)", resumed, bound)
	require.Len(t, resumed, 4)
	for _, who := range []string{"a", "c", "b2"} {
		require.LessOrEqual(t, resumed[who], bound, "%s resumed within a round trip of the return", who)
	}
	require.LessOrEqual(t, resumed["host"]-resumed["b2"], bound, "the host simulates the stop within a round trip of b2 playing again")
	checked := c.checked
	c.run(3 * time.Second)
	require.Greater(t, c.checked, checked+300, "states taken after the hold, each the host's")
	require.True(t, hasEvent(w.events["a"], rollnet.EventPlayerRejoined, slot, stop), "a told b is back: %v", w.events["a"])
	require.Equal(t, -1, a.c.Stats().Awaited)
	for i, nd := range []*node{a, cc} {
		ps, _ := nd.c.PlayoutStats()
		t.Logf("%s playout across the hold: %+v", nd.name, ps)
		require.Equal(t, before[i][0], ps.Jumps, "%s's playout did not jump across the hold (3 did when it stopped ticking with states queued)", nd.name)
		require.LessOrEqual(t, ps.Stalls-before[i][1], int64(1), "%s: at most a lost state's stall over the hold and 3 s of play", nd.name)
	}
	require.Equal(t, rollnet.NoFrame, c.h.Stats().HoldAt)
	require.Equal(t, slot, b2.c.Stats().First)
	require.Greater(t, b2.c.Frame(), stop+150)
}

// A player who does not come back within the grace is dropped: every
// peer resumes at the stop without it (told EventPlayerDropped).
func TestHostAbsenceDropped(t *testing.T) {
	w := newAbsenceWorld(t, 62, rollnet.AbsenceFreeze, 2*time.Second)
	c := w.c
	a, b := w.nodes[0], w.nodes[1]
	slot := b.c.Stats().First
	stop := w.kill(t, b)
	c.run(time.Second)
	require.Equal(t, stop, a.c.Frame())
	c.run(10 * time.Second) // the link's timeout (5 s), then the grace
	require.Greater(t, a.c.Frame(), stop+60, "resumed without b")
	require.Greater(t, c.h.Frame(), stop+60)
	require.Less(t, w.newest["b"], stop)
	require.True(t, hasEvent(w.events["a"], rollnet.EventPlayerDropped, slot, stop), "a told b was dropped: %v", w.events["a"])
	require.Equal(t, uint64(1), c.h.Stats().Expired)
}

// Under AbsenceForfeit the match stops at the stop frame for good: the
// host and every client hold the host's state at the frame before it,
// told EventPlayerForfeited; the game decides.
func TestHostAbsenceForfeit(t *testing.T) {
	w := newAbsenceWorld(t, 63, rollnet.AbsenceForfeit, 0)
	c := w.c
	a, b, cc := w.nodes[0], w.nodes[1], w.nodes[2]
	slot := b.c.Stats().First
	stop := w.kill(t, b)
	c.run(30 * time.Second) // past the link's timeout and the grace: still stopped
	require.True(t, c.h.Stats().Forfeited)
	require.Equal(t, stop, c.h.Frame())
	want, err := c.h.ChecksumAt(stop - 1)
	require.NoError(t, err)
	for _, nd := range []*node{a, cc} {
		st := nd.c.Stats()
		require.True(t, st.Forfeited, nd.name)
		require.Equal(t, stop, nd.c.Frame(), nd.name)
		s, f := nd.c.HostState()
		require.Equal(t, stop-1, f, nd.name)
		require.Equal(t, want, rollback.Checksum(rollback.BytesOf(s)), nd.name)
		require.Equal(t, *s, *nd.c.State(), "%s's present is the host's state before the stop", nd.name)
		require.True(t, hasEvent(w.events[nd.name], rollnet.EventPlayerForfeited, slot, stop), "%s told: %v", nd.name, w.events[nd.name])
	}
}

// A host under AbsencePredict sends no lease: its clients run free as
// before, and a client killed is predicted.
func TestHostAbsencePredictSendsNoLease(t *testing.T) {
	w := newAbsenceWorld(t, 64, rollnet.AbsencePredict, 0)
	stop := w.c.h.Frame()
	w.kill2(t, w.nodes[1])
	w.c.run(2 * time.Second)
	require.Greater(t, w.c.h.Frame(), stop+100)
	require.False(t, w.nodes[0].c.leased)
	require.Zero(t, w.c.h.Stats().Awaiting)
}

func (w *absenceWorld) kill2(_ *testing.T, nd *node) {
	w.c.net.Partition(nd.name, "host")
	nd.cut = true
}

// A client in a spectator's slot (HostConfig.PlayingSlots) is never
// awaited: the match plays on without it.
func TestHostAbsenceSpectatorNotAwaited(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 66, players: 3, link: absenceLink, host: HostConfig[uint16]{Absence: rollnet.AbsenceFreeze, PlayingSlots: 2}})
	for i, name := range []string{"a", "b", "watcher"} {
		c.add(name, ClientConfig{}, mash(uint16(i+1), 3))
		c.run(500 * time.Millisecond) // joined in order: the watcher holds slot 2
	}
	c.run(2 * time.Second)
	w := c.nodes[2]
	require.Equal(t, 2, w.c.Stats().First)
	c.net.Partition("watcher", "host")
	w.cut = true
	f := c.h.Frame()
	c.run(3 * time.Second)
	require.Zero(t, c.h.Stats().Awaiting)
	require.Greater(t, c.h.Frame(), f+150, "played on")
	require.Greater(t, c.nodes[0].c.Frame(), f+150)
}

// A tick of a held match allocates nothing, on the host and on a client.
func TestHostAbsenceHoldAllocatesNothing(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	w := newAbsenceWorld(t, 65, rollnet.AbsenceFreeze, time.Minute)
	a := w.nodes[0]
	stop := w.kill(t, w.nodes[1])
	w.c.run(time.Second)
	evs := make([]rollnet.Event, 0, 256)
	allocs.RequireZero(t, 199, func() {
		w.c.clock.Advance(tick)
		_ = w.c.h.AdvanceFrame()
		_ = a.c.AddLocalInput(0, 3)
		_, _ = a.c.Update(tick)
		evs = a.c.Events(evs[:0])
		_ = a.c.Stats()
		_ = w.c.h.Stats()
	})
	require.Equal(t, stop, a.c.Frame())
	require.Equal(t, stop, w.c.h.Frame())
}
