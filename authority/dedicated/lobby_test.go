package dedicated

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/transport/local"
)

// TestLobbyFlags: -wait-for and -lobby-timeout reach the host, which
// holds frame 0 until the lobby's timeout passes (no client came).
func TestLobbyFlags(t *testing.T) {
	o, err := parse("rollnet-host", testGames, []string{"-wait-for", "2", "-lobby-timeout", "1s"}, &syncBuffer{})
	require.NoError(t, err)
	require.Equal(t, 2, o.lim.waitFor)
	require.Equal(t, time.Second, o.lim.lobby)
	clock, n := testkit.NewNet(t, local.Config{})
	ep, err := n.Endpoint("host")
	require.NoError(t, err)
	o.lim.inputAhead, o.lim.packets, o.lim.joins, o.lim.joinTimeout, o.lim.perAddress, o.lim.budget = 32, 64, 4, 5*time.Second, 4, 1<<18
	h, err := lineGame.open(ep, "r", o.lim, rollnet.NetConfig{FrameRate: 60, Now: clock.Now})
	require.NoError(t, err)
	for range 59 {
		require.NoError(t, h.AdvanceFrame())
		clock.Advance(time.Second / 60)
	}
	require.True(t, h.Stats().Waiting)
	require.Equal(t, rollnet.Frame(0), h.Frame())
	for range 3 {
		require.NoError(t, h.AdvanceFrame())
		clock.Advance(time.Second / 60)
	}
	require.False(t, h.Stats().Waiting)
	require.Positive(t, h.Frame())
}

// TestAbsenceFlag: -absence reaches the host. A client that goes silent
// holds the match under freeze (the host awaits it and stops) and does
// not under predict; a policy the host does not know is refused.
func TestAbsenceFlag(t *testing.T) {
	_, err := parse("rollnet-host", testGames, []string{"-absence", "nap"}, &syncBuffer{})
	require.Error(t, err)
	run := func(policy string) authority.HostStats {
		o, err := parse("rollnet-host", testGames, []string{"-absence", policy}, &syncBuffer{})
		require.NoError(t, err)
		require.Equal(t, policy, o.lim.absence.String())
		clock, n := testkit.NewNet(t, local.Config{})
		ep, err := n.Endpoint("host")
		require.NoError(t, err)
		o.lim.inputAhead, o.lim.packets, o.lim.joins, o.lim.joinTimeout, o.lim.perAddress, o.lim.budget = 32, 64, 4, 5*time.Second, 4, 1<<18
		o.lim.grace = time.Minute
		net := rollnet.NetConfig{FrameRate: 60, Now: clock.Now}
		h, err := lineGame.open(ep, "r", o.lim, net)
		require.NoError(t, err)
		var clients []*authority.Client[line, int8]
		for _, name := range []string{"a", "b"} {
			e, err := n.Endpoint(name)
			require.NoError(t, err)
			cn := net
			cn.Settings = lineGame.Settings("r") // the host's game's hash for the room
			c, err := authority.NewClient[line](authority.ClientConfig{Host: "host", Players: 2, Net: cn}, e, step)
			require.NoError(t, err)
			clients = append(clients, c)
		}
		for i := range 600 {
			clock.Advance(time.Second / 60)
			require.NoError(t, h.AdvanceFrame())
			for j, c := range clients {
				if j == 1 && i >= 300 {
					continue // b's process is gone: silent from here
				}
				if c.Synchronized() {
					_ = c.AddLocalInput(0, 1)
				}
				_, _ = c.Update(time.Second / 60)
			}
		}
		t.Logf("%s: frame %d, awaiting %d, held at %d", policy, h.Frame(), h.Stats().Awaiting, h.Stats().HoldAt)
		return h.Stats()
	}
	st := run("freeze")
	require.Equal(t, 1, st.Awaiting, "under -absence freeze the host awaits the silent client")
	require.Less(t, st.HoldAt, rollnet.Frame(400), "and holds the match")
	require.Equal(t, 0, run("predict").Awaiting, "under predict it plays on")
}
