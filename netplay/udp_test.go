//go:build !js

package netplay_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/tokenverify"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/udp"
)

// TestConnectOverUDP: a game hands netplay transport/udp's host and
// client (dialed with a connect token) as Config.Transport (the client's
// Peers its host, to greet), and the
// authoritative match plays over it: the host's inputs reach the
// client's state.
func TestConnectOverUDP(t *testing.T) {
	v, err := tokenverify.NewVerifier(quicSecret, quicHostAddr, tokenverify.Config{})
	require.NoError(t, err)
	ht, err := udp.Listen("127.0.0.1:0", udp.Config{Address: quicHostAddr, Tokens: v})
	require.NoError(t, err)
	h, err := netplay.Host[World, Buttons](netplay.Config{Transport: ht, Players: 2, LocalPlayers: 1, Name: "court"}, simulate)
	if err != nil {
		_ = ht.Close()
		require.NoError(t, err)
	}
	defer h.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ct, err := udp.Dial(ctx, ht.LocalAddr().String(), udp.Config{Grant: quicGrant(t, 7)})
	require.NoError(t, err)
	c, err := netplay.Connect[World, Buttons](netplay.Config{Transport: ct, Peers: []transport.Peer{ct.Host()}, Players: 2, Name: "alice", Room: "court", Timeout: 10 * time.Second}, simulate)
	if err != nil {
		_ = ct.Close()
		require.NoError(t, err)
	}
	defer c.Close()
	err = tickUntil(t, "the client plays the host's frames", func() bool {
		return c.State() != nil && c.State().X[0] > 30
	}, h, c)
	require.NoError(t, err)
	require.Equal(t, netplay.ModeClient, c.Mode())
	require.Equal(t, "alice", h.Name(1))
	require.Equal(t, "court", c.Name(0))
	require.Zero(t, ht.Stats().Forged+ht.Stats().Replayed+ht.Stats().Malformed)
}
