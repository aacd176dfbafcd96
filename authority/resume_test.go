package authority

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport/local"
)

// Resume: a client's transport is cut for 2 s, then it says Hello with its
// token on a new one: RESUME_ACCEPT, its slot kept, the inputs it made
// meanwhile reach the host (late, accounted for), and its world goes on.
// Cut past the grace window, the same Hello gets RESUME_REJECT and a fresh
// INITIAL_SYNC, and nothing of the old world is sent.
func TestResume(t *testing.T) {
	link := local.Link{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02}
	net := session.NetConfig{DisconnectTimeout: time.Second, DisconnectNotify: 500 * time.Millisecond}
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
	require.NoError(t, a.c.Reconnect(ep2))
	c.run(3 * time.Second)
	require.Equal(t, codec.WelcomeResume, a.c.answer)
	require.Equal(t, uint64(1), c.h.Stats().Resumed)
	require.Equal(t, slot, a.c.Stats().First)
	require.Equal(t, token, a.c.token)
	after := c.h.Clients(nil)[clientIndex(c, slot)]
	require.True(t, after.Connected)
	require.Equal(t, "a2", string(after.Peer))
	late := after.LateInputs - before.LateInputs
	require.Greater(t, late, uint64(100), "the 2 s of inputs made while cut off arrived late")
	require.Zero(t, after.InputsLost)
	pending := uint64(c.h.clients[clientIndex(c, slot)].lateN)
	require.Equal(t, after.LateInputs, after.LateApplied+after.LateDropped+pending)
	require.True(t, a.c.Synchronized())

	// Cut past the grace window: the token is void.
	c.net.Partition("a2", "host")
	c.run(7 * time.Second)
	require.Equal(t, uint64(1), c.h.Stats().Expired)
	ep3, err := c.net.Endpoint("a3")
	require.NoError(t, err)
	require.NoError(t, a.c.Reconnect(ep3))
	c.run(3 * time.Second)
	st := a.c.Stats()
	require.True(t, st.Rejected)
	require.Equal(t, codec.WelcomeSync, a.c.answer)
	require.True(t, st.Synchronized)
	require.NotEqual(t, token, a.c.token)
	hs := c.h.Stats()
	require.Equal(t, uint64(1), hs.ResumesRejected)
	require.Equal(t, uint64(3), hs.Joined)
	now := c.h.Clients(nil)
	var fresh ClientStats
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
