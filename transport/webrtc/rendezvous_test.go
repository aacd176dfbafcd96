package webrtc

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/transport"
)

// Three endpoints in one room form a full mesh: each offers to those who
// join after it.
func TestThreePeersMesh(t *testing.T) {
	names := []string{"a", "b", "c"}
	a, b, c := meshOfThree(t, Config{}, Config{}, Config{})
	trs := []*rtcTransport{a, b, c}
	for _, tr := range trs {
		require.Len(t, tr.Peers(nil), 2)
	}
	buf := make([]byte, transport.MaxDatagram)
	for i, from := range trs {
		for j, to := range trs {
			if i == j {
				continue
			}
			require.NoError(t, from.Send(to.Local(), []byte(names[i]+names[j])))
			n, src := recv(t, to, buf)
			require.Equal(t, names[i]+names[j], string(buf[:n]))
			require.Equal(t, from.Local(), src)
		}
	}
}

// A peer that leaves the rendezvous before its channel opens is gone.
func TestPeerLeftBeforeConnecting(t *testing.T) {
	h := newHub()
	h.hold = func(string, string, signalMsg) bool { return true } // no negotiation gets through
	a, err := newOn(Config{LoopbackOnly: true}, h.join("a"))
	require.NoError(t, err)
	defer a.Close()
	pb := h.join("b")
	require.Eventually(t, func() bool { // a offered to b
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.held) > 0
	}, waitBound, time.Millisecond)
	require.NoError(t, a.Send("b", []byte("x")), "known, not open: dropped")
	require.NoError(t, pb.Close())

	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	ev := waitEvent(ctx, t, a, transport.PeerGone)
	require.Equal(t, transport.Peer("b"), ev.Peer)
	require.ErrorIs(t, ev.Err, ErrPeerLeft)
	require.ErrorIs(t, a.Send("b", []byte("x")), transport.ErrPeerGone)
}

// The data channel outlives the rendezvous: when the signaling server goes
// away mid-match, datagrams still flow and signalingErr says why no new
// peer can come.
func TestChannelOutlivesSignaling(t *testing.T) {
	srv, err := signaling.NewServer(signaling.ServerConfig{})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/room/outlive"
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	a, err := dial(ctx, url, Config{LoopbackOnly: true})
	require.NoError(t, err)
	defer a.Close()
	b, err := dial(ctx, url, Config{LoopbackOnly: true})
	require.NoError(t, err)
	defer b.Close()
	_, err = a.WaitPeers(ctx, 1)
	require.NoError(t, err)
	_, err = b.WaitPeers(ctx, 1)
	require.NoError(t, err)
	require.NoError(t, a.signalingErr())

	require.NoError(t, srv.Close())
	require.Eventually(t, func() bool { return a.signalingErr() != nil && b.signalingErr() != nil },
		waitBound, time.Millisecond)
	t.Logf("signaling ended: %v", a.signalingErr())

	buf := make([]byte, transport.MaxDatagram)
	require.NoError(t, a.Send(b.Local(), []byte("still here")))
	n, _ := recv(t, b, buf)
	require.Equal(t, "still here", string(buf[:n]))
	require.Equal(t, []transport.Peer{a.Local()}, b.Peers(nil))
}
