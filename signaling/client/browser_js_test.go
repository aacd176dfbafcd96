package client

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/internal/wire"
)

// Set by TestClientInChromium (browser_test.go), which starts the servers
// and this page.
var (
	serverURL  = flag.String("sig.url", "", "a signaling server's ws:// base URL")
	hostileURL = flag.String("sig.hostile", "", "a ws:// URL whose server sends a message over the limit it advertised")
)

// TestBrowserClient runs in Chromium against a real server, through the
// page's WebSocket: two clients meet, signal and leave; a dial the server
// refuses, a full room and an oversize message end as they should; and
// HTTPHeader is refused.
func TestBrowserClient(t *testing.T) {
	if *serverURL == "" {
		t.Skip("run by TestClientInChromium")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	a, err := Dial(ctx, *serverURL+"/room/pair", Config{})
	require.NoError(t, err)
	b, err := Dial(ctx, *serverURL+"/room/pair", Config{})
	require.NoError(t, err)
	require.Equal(t, []string{a.ID()}, b.Peers())
	next := func(c *Client) Event {
		select {
		case ev, ok := <-c.Events():
			require.True(t, ok, "events ended: %v", c.Err())
			return ev
		case <-ctx.Done():
			t.Fatal("no event within a minute")
		}
		return Event{}
	}
	require.Equal(t, Event{Kind: PeerJoined, Peer: b.ID()}, next(a))
	payload := json.RawMessage(`{"type":"offer","sdp":"v=0\r\n<escaped?>"}`)
	require.NoError(t, a.Send(ctx, b.ID(), Signal{Kind: SignalOffer, Payload: payload}))
	ev := next(b)
	require.Equal(t, SignalReceived, ev.Kind)
	require.Equal(t, string(payload), string(ev.Signal.Payload), "the payload's bytes arrive unchanged")
	require.NoError(t, b.Close())
	require.Equal(t, Event{Kind: PeerLeft, Peer: b.ID()}, next(a))
	require.NoError(t, b.Err(), "a closed client ended normally")

	// The third in a room of two is closed with code 4001 (ErrRoomFull).
	c, err := Dial(ctx, *serverURL+"/room/pair", Config{})
	require.NoError(t, err)
	d, err := Dial(ctx, *serverURL+"/room/pair", Config{})
	if err == nil {
		for range d.Events() {
		}
		err = d.Err()
	}
	require.ErrorIs(t, err, ErrRoomFull)
	var ce *CloseError
	require.ErrorAs(t, err, &ce)
	require.NoError(t, c.Close())
	require.NoError(t, a.Close())

	// A refusal before the upgrade: the page learns nothing but that.
	_, err = Dial(ctx, *serverURL+"/nowhere", Config{})
	require.ErrorIs(t, err, ErrClosed)
	var he *HTTPError
	require.False(t, errors.As(err, &he), "a browser reports no HTTP status")

	_, err = Dial(ctx, *serverURL+"/room/x", Config{HTTPHeader: map[string][]string{"X": {"y"}}})
	require.ErrorIs(t, err, ErrConfig)

	// A server that sends more than the limit it advertised is dropped.
	h, err := Dial(ctx, *hostileURL, Config{})
	require.NoError(t, err)
	for range h.Events() {
	}
	require.ErrorIs(t, h.Err(), wire.ErrMessageTooBig)
	require.True(t, strings.Contains(h.Err().Error(), "limit"), h.Err().Error())
	require.NoError(t, h.Close())
}
