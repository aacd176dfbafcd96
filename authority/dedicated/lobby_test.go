package dedicated

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
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
