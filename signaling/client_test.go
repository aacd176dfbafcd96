package signaling

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/signaling/internal/wire"
)

// fakeServer serves one scripted WebSocket peer per connection, to test
// how the client takes what a real server would never send.
func fakeServer(t *testing.T, script func(ctx context.Context, ws *websocket.Conn)) string {
	t.Helper()
	var wg sync.WaitGroup
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		wg.Add(1)
		defer wg.Done()
		defer ws.CloseNow()
		ctx := context.Background()
		_, _, err = ws.Read(ctx) // the join
		if err != nil {
			return
		}
		script(ctx, ws)
	}))
	t.Cleanup(func() {
		hs.Close()
		wg.Wait()
		http.DefaultClient.CloseIdleConnections()
	})
	return "ws" + strings.TrimPrefix(hs.URL, "http") + "/room/x"
}

const (
	fakeID   = "00000000000000aa"
	fakePeer = "00000000000000bb"
	fakeJoin = `{"v":2,"type":"join","id":"` + fakeID + `","room":"x","peers":["` + fakePeer + `"],"protocols":[2],"max":16384}`
)

func write(ctx context.Context, ws *websocket.Conn, msg string) {
	_ = ws.Write(ctx, websocket.MessageText, []byte(msg))
}

func TestClientServerErrorEvent(t *testing.T) {
	url := fakeServer(t, func(ctx context.Context, ws *websocket.Conn) {
		write(ctx, ws, fakeJoin)
		write(ctx, ws, `{"v":2,"type":"error","code":"unknown-peer","message":"no","peer":"`+fakePeer+`"}`)
		write(ctx, ws, `{"v":2,"type":"error","code":"other","message":"something else"}`)
		_, _, _ = ws.Read(ctx) // until the client closes
	})
	c, err := client.Dial(context.Background(), url, client.Config{})
	require.NoError(t, err)
	defer c.Close()
	require.Equal(t, fakeID, c.ID())
	require.Equal(t, []string{fakePeer}, c.Peers())
	ev := next(t, c)
	require.Equal(t, client.ServerError, ev.Kind)
	require.Equal(t, fakePeer, ev.Peer)
	require.ErrorIs(t, ev.Err, client.ErrUnknownPeer)
	ev = next(t, c)
	require.Equal(t, client.ServerError, ev.Kind)
	require.NotErrorIs(t, ev.Err, client.ErrUnknownPeer)
	require.ErrorContains(t, ev.Err, "something else")
	require.NoError(t, c.Close())
	require.NoError(t, ended(t, c))
}

func TestClientDropsMalformedServer(t *testing.T) {
	for name, msg := range map[string]string{
		"not JSON":      `nope`,
		"wrong version": `{"v":9,"type":"peer-joined","peer":"` + fakePeer + `"}`,
		"older version": `{"v":1,"type":"peer-left","peer":"` + fakePeer + `"}`,
		"no protocol":   `{"v":2,"type":"peer-joined","peer":"` + fakePeer + `"}`,
		"second join":   fakeJoin,
		"bad peer id":   `{"v":2,"type":"peer-left","peer":"X"}`,
		"client's join": `{"v":2,"type":"join"}`,
	} {
		t.Run(name, func(t *testing.T) {
			url := fakeServer(t, func(ctx context.Context, ws *websocket.Conn) {
				write(ctx, ws, fakeJoin)
				write(ctx, ws, msg)
				_, _, err := ws.Read(ctx)
				require.Equal(t, wire.CodeMalformed, int(websocket.CloseStatus(err)), "the client says why")
			})
			c, err := client.Dial(context.Background(), url, client.Config{})
			require.NoError(t, err)
			defer c.Close()
			require.ErrorIs(t, ended(t, c), wire.ErrMalformed)
		})
	}
}

func TestClientDialRefusesBadJoinReply(t *testing.T) {
	for name, msg := range map[string]string{
		"not a join":   `{"v":2,"type":"peer-joined","peer":"` + fakePeer + `"}`,
		"no id":        `{"v":2,"type":"join","room":"x","max":100}`,
		"self as peer": `{"v":2,"type":"join","id":"` + fakeID + `","room":"x","peers":["` + fakeID + `"],"max":100}`,
		"no limit":     `{"v":2,"type":"join","id":"` + fakeID + `","room":"x"}`,
		"bad ICE":      `{"v":2,"type":"join","id":"` + fakeID + `","room":"x","max":100,"ice":[{"urls":["turn:x"]}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			url := fakeServer(t, func(ctx context.Context, ws *websocket.Conn) { write(ctx, ws, msg) })
			_, err := client.Dial(context.Background(), url, client.Config{})
			require.ErrorIs(t, err, wire.ErrMalformed)
		})
	}
}

func TestClientConnectionDrop(t *testing.T) {
	url := fakeServer(t, func(ctx context.Context, ws *websocket.Conn) {
		write(ctx, ws, fakeJoin)
		_ = ws.CloseNow() // no close frame
	})
	c, err := client.Dial(context.Background(), url, client.Config{})
	require.NoError(t, err)
	defer c.Close()
	err = ended(t, c)
	require.ErrorIs(t, err, client.ErrClosed)
	require.ErrorIs(t, c.Send(context.Background(), fakePeer, offer("x")), client.ErrClosed)
}

func TestClientSendValidates(t *testing.T) {
	h := start(t, ServerConfig{})
	a := h.dial("/room/v")
	b := h.dial("/room/v")
	for name, s := range map[string]client.Signal{
		"no kind":      {Payload: json.RawMessage(`{}`)},
		"bad kind":     {Kind: "bye", Payload: json.RawMessage(`{}`)},
		"no payload":   {Kind: client.SignalOffer},
		"null payload": {Kind: client.SignalOffer, Payload: json.RawMessage(`null`)},
		"not JSON":     {Kind: client.SignalOffer, Payload: json.RawMessage(`{`)},
	} {
		require.ErrorIs(t, b.Send(context.Background(), a.ID(), s), wire.ErrInvalidSignal, name)
	}
	require.ErrorIs(t, b.Send(context.Background(), "", offer("x")), client.ErrUnknownPeer)
	require.ErrorIs(t, b.Send(context.Background(), b.ID(), offer("x")), client.ErrUnknownPeer, "not to itself")
}

func TestClientCloseWhileEventsUndrained(t *testing.T) {
	h := start(t, ServerConfig{})
	ctx := context.Background()
	a, err := client.Dial(ctx, h.url("/room/q"), client.Config{EventQueue: 1})
	require.NoError(t, err)
	for range 5 {
		h.dial("/room/q") // a hears 5 joins with room for 1
	}
	eventually(t, func() bool { return len(a.Events()) == 1 }, "queue full")
	require.NoError(t, a.Close()) // does not wait for anyone to drain
	require.NoError(t, ended(t, a))
}

func TestClientDialErrors(t *testing.T) {
	_, err := client.Dial(context.Background(), "ws://127.0.0.1:1/room/x", client.Config{})
	require.Error(t, err)
	_, err = client.Dial(context.Background(), "ws://127.0.0.1:1/room/x", client.Config{EventQueue: -1})
	require.ErrorIs(t, err, client.ErrConfig)
	h := start(t, ServerConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = client.Dial(ctx, h.url("/room/x"), client.Config{})
	require.ErrorIs(t, err, context.Canceled)
}

func TestClientDialServerClosesBeforeJoinReply(t *testing.T) {
	url := fakeServer(t, func(ctx context.Context, ws *websocket.Conn) {
		_ = ws.Close(websocket.StatusNormalClosure, "")
	})
	c, err := client.Dial(context.Background(), url, client.Config{})
	require.ErrorIs(t, err, client.ErrClosed)
	require.Nil(t, c)
}
