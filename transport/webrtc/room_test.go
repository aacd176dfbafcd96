package webrtc

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/transport"
)

func TestRoomURL(t *testing.T) {
	for _, c := range []struct{ signal, room, token, want string }{
		{"ws://h:1", "tr", "", "ws://h:1/room/tr"},
		{"ws://h:1/", "", "", "ws://h:1/room?next=2"},
		{"ws://h:1?token=T", "tr", "", "ws://h:1/room/tr?token=T"},
		{"wss://h/sig", "tr", "T2", "wss://h/sig/room/tr?token=T2"},
		{"ws://h:1/room/x", "ignored", "", "ws://h:1/room/x"},
	} {
		got, err := roomURL(c.signal, c.room, c.token)
		require.NoError(t, err, c.signal)
		require.Equal(t, c.want, got, c.signal)
	}
	_, err := roomURL("http://h:1?token=SECRET", "r", "")
	require.ErrorIs(t, err, rollnet.ErrConfig)
	require.NotContains(t, err.Error(), "SECRET", "the token is never echoed")
	require.Contains(t, err.Error(), "REDACTED")
}

func TestRedactError(t *testing.T) {
	u := "ws://h:1/room/tr?token=SECRET"
	base := errors.New("dial " + u + ": HTTP 403")
	err := redactError(base, u)
	require.NotContains(t, err.Error(), "SECRET")
	require.Contains(t, err.Error(), "token=REDACTED")
	require.ErrorIs(t, err, base)
	plain := errors.New("no token here")
	require.Equal(t, plain, redactError(plain, "ws://h:1/room/x"))
}

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
	}, 10*time.Second, 10*time.Millisecond, "a selected pair has a route")
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
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = RoomDialer{Signal: "ws" + strings.TrimPrefix(hs.URL, "http"), Relay: true}.DialRoom(ctx, "r", nil)
	require.ErrorIs(t, err, rollnet.ErrConfig)
	_, err = RoomDialer{Signal: "http://h:1"}.DialRoom(ctx, "r", nil)
	require.ErrorIs(t, err, rollnet.ErrConfig)
}
