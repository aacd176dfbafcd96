package webrtc

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/transport"
)

// Two endpoints that dial the room "" through a RoomDialer are paired in
// a room the server names: the first finds it empty, the second finds
// the first, and their channel opens, as a facade sees it through the
// transport package's interfaces alone.
func TestRoomDialerPairs(t *testing.T) {
	srv, err := signaling.NewServer(signaling.ServerConfig{})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	var d transport.RoomDialer = RoomDialer{Signal: "ws" + strings.TrimPrefix(hs.URL, "http")}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	a, err := d.DialRoom(ctx, "", nil)
	require.NoError(t, err)
	defer a.Close()
	require.Empty(t, a.AtJoin(nil), "the first to join finds the room empty")
	b, err := d.DialRoom(ctx, "", nil)
	require.NoError(t, err)
	defer b.Close()
	require.NotEmpty(t, a.Name())
	require.Equal(t, a.Name(), b.Name(), "paired in one room")
	require.Equal(t, []transport.Peer{a.Local()}, b.AtJoin(nil))

	ps, err := b.WaitPeers(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, []transport.Peer{a.Local()}, ps)
	_, err = a.WaitPeers(ctx, 1)
	require.NoError(t, err)
	evs := a.Events(nil)
	require.NotEmpty(t, evs)
	require.Equal(t, transport.PeerEvent{Kind: transport.PeerConnected, Peer: b.Local()}, evs[0])

	pr, ok := b.(transport.PathReporter)
	require.True(t, ok, "a WebRTC room reports its paths")
	require.Eventually(t, func() bool {
		p, err := pr.Path(a.Local())
		require.NoError(t, err)
		return p.Route != ""
	}, waitBound, 10*time.Millisecond, "a selected pair has a route")
	_, err = pr.Path("nobody")
	require.ErrorIs(t, err, transport.ErrUnknownPeer)

	require.NoError(t, a.Close())
	_, err = a.WaitPeers(ctx, 1)
	require.ErrorIs(t, err, transport.ErrClosed)
}

// A dialer that asks for a relay fails when the server hands out none,
// and one with a malformed server URL before dialing.
func TestRoomDialerRefuses(t *testing.T) {
	srv, err := signaling.NewServer(signaling.ServerConfig{})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	_, err = RoomDialer{Signal: "ws" + strings.TrimPrefix(hs.URL, "http"), Relay: true}.DialRoom(ctx, "r", nil)
	require.ErrorIs(t, err, rollnet.ErrConfig)
	_, err = RoomDialer{Signal: "http://h:1"}.DialRoom(ctx, "r", nil)
	require.ErrorIs(t, err, rollnet.ErrConfig)
}
