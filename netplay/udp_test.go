//go:build !js

package netplay_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/udp"
)

// TestConnectOverUDP: a game hands netplay transport/udp's host and
// client (dialed with a connect token) as Config.Transport (the client's
// Peers its host, to greet), or has netplay dial the host's udp:// URL
// with the grant as it dials a quic:// one (Config.QUIC), and the
// authoritative match plays over it: the host's inputs reach the
// client's state.
func TestConnectOverUDP(t *testing.T) {
	for _, how := range []string{"Transport", "URL"} {
		t.Run(how, func(t *testing.T) {
			h, ht := udpHost(t)
			cfg := netplay.Config{Players: 2, Name: "alice", Room: "court", Timeout: 10 * time.Second}
			if how == "Transport" {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				ct, err := udp.Dial(ctx, ht.LocalAddr().String(), udp.Config{Grant: quicGrant(t, 7)})
				require.NoError(t, err)
				t.Cleanup(func() { _ = ct.Close() })
				cfg.Transport, cfg.Peers = ct, []transport.Peer{ct.Host()}
			} else {
				cfg.QUIC = netplay.QUICHost{URL: "udp://" + ht.LocalAddr().String(), Grant: quicGrant(t, 7)}
			}
			c, err := netplay.Connect[World, Buttons](cfg, simulate)
			require.NoError(t, err)
			defer c.Close()
			err = tickUntil(t, "the client plays the host's frames, its name heard", func() bool {
				return c.State() != nil && c.State().X[0] > 30 && h.Name(1) == "alice" // (the hello may come after the frames)
			}, h, c)
			require.NoError(t, err)
			require.Equal(t, netplay.ModeClient, c.Mode())
			require.Equal(t, "alice", h.Name(1))
			require.Equal(t, "court", c.Name(0))
			require.Zero(t, ht.Stats().Forged+ht.Stats().Replayed+ht.Stats().Malformed)
			// The route names the path and the address at the other end.
			require.Equal(t, "direct udp to "+ht.LocalAddr().String(), c.Stats().Route)
			require.Regexp(t, `^direct udp to 127\.0\.0\.1:\d+$`, h.Stats().Route)
			// The transport's own round trip reaches NetworkRTT (read
			// once a second), as QUIC's and WebRTC's do.
			require.NoError(t, tickUntil(t, "NetworkRTT measured on both ends", func() bool {
				return c.Stats().NetworkRTT > 0 && h.Stats().NetworkRTT > 0
			}, h, c))
		})
	}
}

// A udp:// host needs a grant and has no certificate: Connect says so at
// once.
func TestConnectOverUDPConfig(t *testing.T) {
	for _, q := range []netplay.QUICHost{
		{URL: "udp://127.0.0.1:9"},
		{URL: "udp://127.0.0.1:9", Grant: quicGrant(t, 7), PinSHA256: [32]byte{1}},
		{URL: "udp://127.0.0.1", Grant: quicGrant(t, 7)},
	} {
		_, err := netplay.Connect[World, Buttons](netplay.Config{QUIC: q, Players: 2, Room: "court"}, simulate)
		require.ErrorIs(t, err, rollnet.ErrConfig, "%+v", q)
	}
}

// udpHost is a listen host (slot 0) on a transport/udp socket on loopback
// that admits the connect tokens minted for quicHostAddr.
func udpHost(t *testing.T) (*netplay.Match[World, Buttons], udp.Transport) {
	t.Helper()
	ht, err := udp.Listen("127.0.0.1:0", udp.Config{Address: quicHostAddr, TokenSecret: quicSecret})
	require.NoError(t, err)
	h, err := netplay.Host[World, Buttons](netplay.Config{Transport: ht, Players: 2, LocalPlayers: 1, Name: "court"}, simulate)
	if err != nil {
		_ = ht.Close()
		require.NoError(t, err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h, ht
}
