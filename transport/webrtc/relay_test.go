//go:build !js

package webrtc

import (
	"context"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/signaling/turn"
)

// A 600-frame match with both peers forced to relay candidates
// (ICETransportPolicyRelay) through the embedded TURN relay, with the
// credentials the signaling server mints at join, beside the same match
// direct on loopback, played at the same time so that both see the same
// machine load. Every confirmed frame agrees on both.
func TestEndToEndRelayOnly600Frames(t *testing.T) {
	const frames = 600
	secret := []byte("relay-e2e")
	relay, err := turn.Listen(turn.Config{
		Secret:        secret,
		PublicIP:      net.IPv4(127, 0, 0, 1),
		RelayBind:     "127.0.0.1",
		AllowLoopback: true, // both peers and the relay share this machine
	}, "127.0.0.1:0")
	require.NoError(t, err)
	defer relay.Close()
	srv, err := signaling.NewServer(signaling.ServerConfig{
		ICEServers: []client.ICEServer{{URLs: relay.URLs()}},
		TURNSecret: secret,
	})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	base := "ws" + strings.TrimPrefix(hs.URL, "http") + "/room/"

	var rtts [2][]time.Duration
	var kinds [2]string
	var ice [2]time.Duration
	t.Run("matches", func(t *testing.T) {
		for i, c := range []struct {
			name string
			cfg  Config
		}{{"relay", Config{RelayOnly: true}}, {"direct", Config{LoopbackOnly: true}}} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				trs := make([]*rtcTransport, 2)
				for j := range trs {
					var err error
					trs[j], err = dial(ctx, base+c.name, c.cfg)
					require.NoError(t, err)
					defer trs[j].Close()
				}
				for j, tr := range trs {
					_, err := tr.WaitPeers(ctx, 1)
					// On a loaded machine the one failure seen here was this
					// wait running out: say what each side had seen by then.
					require.NoError(t, err, "peer %d of the %s match waited 60 s for the other's data channel; its events %+v; its stats %+v; the relay's %+v",
						j, c.name, tr.Events(nil), tr.Stats(), relay.Stats())
				}
				players := playGame(t, ctx, trs, frames)
				rtts[i] = roundTrips(players)
				info, err := trs[0].peerInfo(players[0].opponent)
				require.NoError(t, err)
				kinds[i], ice[i] = info.LocalCandidate+" to "+info.RemoteCandidate, info.RTT
				if c.cfg.RelayOnly {
					require.Equal(t, "relay to relay", kinds[i])
					require.Equal(t, pathRelay, info.Path)
					require.Equal(t, "udp", info.Protocol, "TURN over UDP on loopback")
				}
			})
		}
	})
	if t.Failed() {
		return
	}
	pct := func(i int, q float64) time.Duration { return percentile(rtts[i], q) }
	t.Logf("input round trip over %d frames at 60 Hz, same time, same machine (includes up to one 16.7 ms tick of the peer):", frames)
	for i, name := range []string{"relay ", "direct"} {
		t.Logf("  %s p50 %8v  p99 %8v  max %8v  (%s; ICE's own round trip %v)",
			name, pct(i, 0.5), pct(i, 0.99), rtts[i][len(rtts[i])-1], kinds[i], ice[i])
	}
	st := relay.Stats()
	t.Logf("relay: %+v", st)
	require.GreaterOrEqual(t, st.Allocated, uint64(2), "one allocation per peer at least")
	require.Zero(t, st.Expired+st.Forged+st.Malformed+st.PeersRefused)
}

func TestRelayOnlyExcludesLoopbackOnly(t *testing.T) {
	_, err := dial(context.Background(), "ws://127.0.0.1:1/room/x", Config{RelayOnly: true, LoopbackOnly: true})
	require.ErrorIs(t, err, rollnet.ErrConfig)
	require.Equal(t, "relay", newEngine(Config{RelayOnly: true}, nil).cfg.ICETransportPolicy.String())
	require.Equal(t, "all", newEngine(Config{}, nil).cfg.ICETransportPolicy.String())
}
