package authority

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport/local"
)

// Resume: a client's transport is cut for 2 s, then it says Hello with its
// token on a new one: RESUME_ACCEPT, its slot kept, the inputs it made
// meanwhile reach the host and are applied late, and its world goes on.
// Cut past the grace window, the same Hello gets RESUME_REJECT and a fresh
// INITIAL_SYNC, and nothing of the old world is sent.
func TestResume(t *testing.T) {
	link := local.Link{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02}
	net := rollnet.NetConfig{DisconnectTimeout: time.Second, DisconnectNotify: 500 * time.Millisecond}
	c := newCluster(t, clusterOpts{seed: 31, players: 2, link: link, host: HostConfig[uint16]{Grace: 5 * time.Second, Net: net}})
	a := c.add("a", ClientConfig{Net: net}, mash(1, 3))
	b := c.add("b", ClientConfig{Net: net}, mash(2, 4))
	c.run(3 * time.Second)
	slot := a.c.Stats().First
	token := a.c.token

	// Cut for 2 s: the client keeps playing into the void.
	c.net.Partition("a", "host")
	c.run(2 * time.Second)
	require.True(t, c.h.Clients(nil)[clientIndex(c, slot)].Away, "the host noticed the silence")
	before := c.h.Clients(nil)[clientIndex(c, slot)]
	ep2, err := c.net.Endpoint("a2")
	require.NoError(t, err)
	require.NoError(t, a.c.Rejoin(ep2))
	c.run(3 * time.Second)
	require.Equal(t, wire.WelcomeResume, a.c.answer)
	require.Equal(t, uint64(1), c.h.Stats().Rejoined)
	require.Equal(t, slot, a.c.Stats().First)
	require.Equal(t, token, a.c.token)
	after := c.h.Clients(nil)[clientIndex(c, slot)]
	require.True(t, after.Connected)
	require.Equal(t, "a2", string(after.Peer))
	late := after.LateInputs - before.LateInputs
	require.Greater(t, late, uint64(100), "the 2 s of inputs made while cut off arrived late")
	require.Zero(t, after.InputsLost)
	pending := uint64(c.h.clients[clientIndex(c, slot)].lateN)
	require.Equal(t, after.LateInputs, after.LateApplied+after.LateSuperseded+after.LateDropped+pending)
	require.Equal(t, after.LateApplied-before.LateApplied, late, "the backlog applied whole (BacklogApply)")
	require.True(t, a.c.Synchronized())

	// Cut past the grace window: the token is void.
	c.net.Partition("a2", "host")
	c.run(7 * time.Second)
	require.Equal(t, uint64(1), c.h.Stats().Expired)
	ep3, err := c.net.Endpoint("a3")
	require.NoError(t, err)
	require.NoError(t, a.c.Rejoin(ep3))
	c.run(3 * time.Second)
	st := a.c.Stats()
	require.True(t, st.Rejected)
	require.Equal(t, wire.WelcomeSync, a.c.answer)
	require.True(t, st.Synchronized)
	require.NotEqual(t, token, a.c.token)
	hs := c.h.Stats()
	require.Equal(t, uint64(1), hs.RejoinsRefused)
	require.Equal(t, uint64(3), hs.Joined)
	now := c.h.Clients(nil)
	var fresh HostClientStats
	for _, s := range now {
		if s.Peer == "a3" {
			fresh = s
		}
	}
	require.Equal(t, "a3", string(fresh.Peer))
	require.Less(t, fresh.LateInputs, uint64(10), "the old world's unacknowledged inputs were never sent")
	require.GreaterOrEqual(t, fresh.FullStates, uint64(1), "the new world began with a full state")
	require.True(t, b.c.Synchronized(), "the other client played on")
	t.Logf("host %+v, a %+v", hs, st)
}

func clientIndex(c *cluster, slot int) int {
	for i, s := range c.h.Clients(nil) {
		if s.First == slot {
			return i
		}
	}
	return -1
}

// The resume's backlog, both ways. BacklogApply: every input the client
// made while cut off is applied, in the order made, one a frame from the
// frame the backlog arrived at; the client's own inputs for as many frames
// are displaced (counted), and none is superseded. BacklogSupersede: the
// client's own inputs, on time again, supersede the backlog (counted) and
// none is displaced. Either way every late input is accounted for, none
// is lost, and the client's world goes on.
func TestResumeBacklog(t *testing.T) {
	for _, mode := range []RejoinBacklog{BacklogApply, BacklogSupersede} {
		t.Run([]string{"Apply", "Supersede"}[mode], func(t *testing.T) {
			link := local.Link{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond}
			net := rollnet.NetConfig{DisconnectTimeout: time.Second, DisconnectNotify: 500 * time.Millisecond}
			c := newCluster(t, clusterOpts{seed: 32, players: 2, link: link, host: HostConfig[uint16]{RejoinBacklog: mode, Net: net}})
			in := mash(1, 3)
			a := c.add("a", ClientConfig{Net: net}, in)
			c.run(3 * time.Second)
			r := c.record("a")
			hc := c.h.clients[r]
			// What the host simulated a with, frame by frame, and whether
			// that frame took a late input.
			used, late := map[rollnet.Frame]uint16{}, map[rollnet.Frame]bool{}
			applied := hc.stats.LateApplied
			c.afterHost = func(f rollnet.Frame) {
				used[f] = c.h.used[hc.first]
				late[f] = hc.stats.LateApplied > applied
				applied = hc.stats.LateApplied
			}
			c.net.Partition("a", "host")
			c.run(2 * time.Second)
			require.True(t, hc.clientStats(1).Away)
			heard := hc.heard // the backlog starts after it
			before, mine := hc.clientStats(1), a.c.Stats()
			ep2, err := c.net.Endpoint("a2")
			require.NoError(t, err)
			require.NoError(t, a.c.Rejoin(ep2))
			c.run(4 * time.Second)
			require.Equal(t, wire.WelcomeResume, a.c.answer)
			after := hc.clientStats(1)
			d := func(x, y uint64) uint64 { return x - y }
			backlog := d(after.LateInputs, before.LateInputs)
			t.Logf("backlog %d: applied %d, superseded %d, displaced %d, dropped %d, lost %d; the client's mismatches %d, frames re-simulated %d",
				backlog, d(after.LateApplied, before.LateApplied), d(after.LateSuperseded, before.LateSuperseded),
				d(after.Displaced, before.Displaced), d(after.LateDropped, before.LateDropped), d(after.InputsLost, before.InputsLost),
				a.c.Stats().Mismatches-mine.Mismatches, a.c.Stats().ResimulatedFrames-mine.ResimulatedFrames)
			require.Greater(t, backlog, uint64(100), "2 s of inputs made while cut off arrived late")
			require.Zero(t, hc.lateN, "nothing still waiting")
			require.Zero(t, after.InputsLost)
			require.Zero(t, after.LateDropped)
			require.Equal(t, after.LateInputs, after.LateApplied+after.LateSuperseded)
			if mode == BacklogSupersede {
				require.Less(t, d(after.LateApplied, before.LateApplied), uint64(10))
				require.Zero(t, after.Displaced)
				return
			}
			require.Equal(t, backlog, d(after.LateApplied, before.LateApplied))
			require.Zero(t, d(after.LateSuperseded, before.LateSuperseded))
			require.Equal(t, backlog, d(after.Displaced, before.Displaced), "the client's inputs for as many frames")
			// In the order made, one a frame.
			var frames []rollnet.Frame
			for f := range late {
				if late[f] {
					frames = append(frames, f)
				}
			}
			slices.Sort(frames)
			require.Len(t, frames, int(backlog))
			for k, f := range frames {
				require.Equal(t, frames[0]+rollnet.Frame(k), f, "one a frame, back to back")
				require.Equal(t, in(heard+1+rollnet.Frame(k)), used[f], "backlog input %d applied at frame %d", k, f)
			}
			require.True(t, a.c.Synchronized())
		})
	}
}

// Once the resume is answered, the ticks that take and apply its backlog
// allocate nothing (the new connection's link and endpoint are made once,
// before).
func TestResumeBacklogAllocatesNothing(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	net := rollnet.NetConfig{DisconnectTimeout: time.Second, DisconnectNotify: 500 * time.Millisecond}
	c := newCluster(t, clusterOpts{seed: 33, players: 2, link: local.Link{Latency: 30 * time.Millisecond}, host: HostConfig[uint16]{Net: net}})
	a := c.add("a", ClientConfig{Net: net}, mash(1, 3))
	c.run(3 * time.Second)
	hc := c.h.clients[c.record("a")]
	c.net.Partition("a", "host")
	c.run(2 * time.Second)
	ep2, err := c.net.Endpoint("a2")
	require.NoError(t, err)
	require.NoError(t, a.c.Rejoin(ep2))
	for a.c.answer != wire.WelcomeResume {
		c.run(tick)
	}
	before := hc.stats
	f := c.h.Frame()
	// 200 ticks in all: one to warm up, the 199 after it counted together.
	allocs.RequireZero(t, 199, func() {
		c.clock.Advance(tick)
		f++
		_ = c.h.AdvanceFrame()
		_ = a.c.AddLocalInput(0, uint16(f/3))
		_ = a.c.AdvanceFrame()
	})
	require.Greater(t, hc.stats.Displaced-before.Displaced, uint64(100), "the backlog was applied meanwhile")
}

// A process started again with the token an earlier one kept
// (ClientConfig.Rejoin) gets its slots back within the grace window: the
// host says RESUME_ACCEPT, and its next state, full since the new
// connection acknowledged none, starts the new client's world; every host
// state it applies is the host's. After the grace window the same token
// gets RESUME_REJECT and a fresh slot, with a new token.
func TestResumeFreshProcess(t *testing.T) {
	link := local.Link{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02}
	net := rollnet.NetConfig{DisconnectTimeout: time.Second, DisconnectNotify: 500 * time.Millisecond}
	c := newCluster(t, clusterOpts{seed: 34, players: 2, link: link, host: HostConfig[uint16]{Grace: 5 * time.Second, Net: net}})
	a := c.add("a", ClientConfig{Net: net}, mash(1, 3))
	_, held := a.c.RejoinToken()
	require.False(t, held, "no token before the host's answer")
	b := c.add("b", ClientConfig{Net: net}, mash(2, 4))
	c.run(3 * time.Second)
	token, held := a.c.RejoinToken()
	require.True(t, held)
	require.NotEqual(t, rollnet.RejoinToken{}, token)
	slot := a.c.Stats().First
	require.False(t, a.c.Stats().Rejoined)

	// Killed: silent, gone. A new process with the token, 2 s later.
	c.net.Partition("a", "host")
	a.cut = true
	c.run(2 * time.Second)
	hc := c.h.clients[clientIndex(c, slot)]
	require.Equal(t, clientAway, hc.state)
	full := hc.stats.FullStates
	a2 := c.add("a2", ClientConfig{Net: net, Rejoin: token}, mash(1, 3))
	c.run(3 * time.Second)
	st := a2.c.Stats()
	require.True(t, st.Synchronized)
	require.True(t, st.Rejoined)
	require.False(t, st.Rejected)
	require.Equal(t, slot, st.First, "the same slot")
	require.Equal(t, wire.WelcomeResume, a2.c.answer)
	got, held := a2.c.RejoinToken()
	require.True(t, held)
	require.Equal(t, token, got, "the same token")
	require.Equal(t, uint64(1), c.h.Stats().Rejoined)
	require.Equal(t, clientConnected, hc.state)
	require.Equal(t, "a2", string(hc.peer))
	require.Greater(t, hc.stats.FullStates, full, "the new process's world began with a full state")
	require.Greater(t, a2.seen, rollnet.Frame(0), "it applied host states (each checked against the host's)")
	require.True(t, b.c.Synchronized(), "the other client played on")

	// Killed again, started again past the grace window: a fresh slot.
	c.net.Partition("a2", "host")
	a2.cut = true
	c.run(7 * time.Second)
	require.Equal(t, uint64(1), c.h.Stats().Expired)
	a3 := c.add("a3", ClientConfig{Net: net, Rejoin: token}, mash(1, 3))
	c.run(3 * time.Second)
	st = a3.c.Stats()
	t.Logf("host %+v; a3 %+v", c.h.Stats(), st)
	require.True(t, st.Synchronized)
	require.True(t, st.Rejected)
	require.False(t, st.Rejoined)
	fresh, held := a3.c.RejoinToken()
	require.True(t, held)
	require.NotEqual(t, token, fresh, "a new token with the fresh slot")
	require.Equal(t, uint64(1), c.h.Stats().RejoinsRefused)
	t.Logf("host %+v; a2 %+v", c.h.Stats(), a2.c.Stats())
}
