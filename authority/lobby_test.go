package authority

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/transport/local"
)

// A host with WaitForPlayers holds frame 0 while its players come, past
// the link's and the join's timeouts, then starts frame 0 for all: every
// client's world starts at the host's frame 0, so a frame budget counts
// from the start of the match, not from the host's launch.
func TestHostLobbyWaitsForPlayers(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 7, players: 3, host: HostConfig[uint16]{WaitForPlayers: 3},
		link: local.Link{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.03}})
	in := func(f rollnet.Frame) uint16 { return uint16(f*7 + 1) }
	a := c.add("a", ClientConfig{}, in)
	c.run(3 * time.Second)
	b := c.add("b", ClientConfig{}, in)
	c.run(5 * time.Second) // past JoinTimeout (5 s) and DisconnectTimeout for a
	st := c.h.Stats()
	require.True(t, st.Waiting)
	require.Equal(t, 2, st.Present)
	require.Equal(t, rollnet.Frame(0), c.h.Frame())
	for _, nd := range []*node{a, b} {
		cs := nd.c.Stats()
		require.True(t, cs.Admitted, nd.name)
		require.False(t, cs.Synchronized, nd.name)
		require.Zero(t, cs.Malformed, nd.name)
	}
	require.Zero(t, st.JoinTimeouts)
	require.Zero(t, st.Expired)

	d := c.add("d", ClientConfig{}, in)
	start := c.clock.Now()
	c.run(500 * time.Millisecond)
	st = c.h.Stats()
	require.False(t, st.Waiting)
	require.Equal(t, 3, st.Present)
	// The host started within a round trip of the third Hello, and ran
	// on from frame 0.
	elapsed := c.clock.Now().Sub(start)
	require.InDelta(t, float64(elapsed/tick), float64(c.h.Frame()), 8)
	for _, nd := range []*node{a, b, d} {
		require.True(t, nd.c.Synchronized(), nd.name)
		require.Equal(t, uint64(1), nd.c.Stats().Reanchors, nd.name) // one world, from frame 0's state
	}
	c.run(2 * time.Second)
	require.Positive(t, c.checked)
	for _, nd := range []*node{a, b, d} {
		// Within the lead of the host's present: the world counted from
		// frame 0 for everyone.
		require.InDelta(t, float64(c.h.Frame()), float64(nd.c.Frame()), 10, nd.name)
	}
}

// LobbyTimeout starts the match with whoever is there; a client that went
// while the host waited frees its slot and is not counted.
func TestHostLobbyTimeout(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 8, players: 2,
		host: HostConfig[uint16]{WaitForPlayers: 2, LobbyTimeout: 2 * time.Second},
		link: local.Link{Latency: 20 * time.Millisecond}})
	gone := c.add("gone", ClientConfig{}, nil)
	c.run(300 * time.Millisecond)
	require.True(t, gone.c.Stats().Admitted)
	require.NoError(t, gone.c.Close())
	gone.cut = true
	c.run(700 * time.Millisecond) // twice the keep-alive after its notice
	require.Equal(t, 0, c.h.Stats().Present, "a client that quit the lobby holds nothing")
	a := c.add("a", ClientConfig{}, nil)
	c.run(600 * time.Millisecond)
	require.True(t, c.h.Stats().Waiting)
	require.Equal(t, rollnet.Frame(0), c.h.Frame())
	c.run(700 * time.Millisecond) // the timeout passes 2 s after the host's first tick
	require.False(t, c.h.Stats().Waiting)
	require.True(t, a.c.Synchronized())
	f := c.h.Frame()
	require.InDelta(t, float64(300*time.Millisecond/tick), float64(f), 6)
}

func TestHostLobbyConfig(t *testing.T) {
	_, err := HostConfig[uint16]{Players: 2, WaitForPlayers: 3}.resolve()
	require.ErrorIs(t, err, rollnet.ErrConfig)
	_, err = HostConfig[uint16]{Players: 2, WaitForPlayers: 2, LobbyTimeout: -1}.resolve()
	require.ErrorIs(t, err, rollnet.ErrConfig)
}
