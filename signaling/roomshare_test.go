//go:build !js

package signaling

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/client"
)

// The attacks of issue 28 item 6, with raw WebSockets against a server on
// loopback. Each address is a stand-in (the "as" query parameter, through
// ClientAddr) for a remote address: loopback ones are exempt from the
// per-address limits.

// asAddr makes the "as" query parameter the client's address.
func asAddr(r *http.Request) string { return r.URL.Query().Get("as") }

// rawTryJoin opens a WebSocket to path and joins. It reports whether the
// server placed it in the room (the open socket, closed at cleanup), and
// otherwise the HTTP status or the close code that refused it.
func (h *harness) rawTryJoin(path string) (ws *websocket.Conn, refused string) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, h.url(path), nil)
	if err != nil {
		require.NotNil(h.t, resp, "dial %s: %v", path, err)
		return nil, http.StatusText(resp.StatusCode)
	}
	h.t.Cleanup(func() { _ = ws.CloseNow() })
	require.NoError(h.t, ws.Write(ctx, websocket.MessageText, []byte(`{"v":1,"type":"join"}`)))
	_, b, err := ws.Read(ctx)
	if err != nil {
		return nil, websocket.CloseStatus(err).String()
	}
	e, err := parseEnvelope(b, fromServer)
	require.NoError(h.t, err, "%s", b)
	require.Equal(h.t, typeJoin, e.Type)
	return ws, ""
}

// leaveRaw closes ws and waits until the server counts conns connections.
func (h *harness) leaveRaw(ws *websocket.Conn, conns int) {
	h.t.Helper()
	_ = ws.Close(websocket.StatusNormalClosure, "")
	eventually(h.t, func() bool { return h.srv.Stats().Connections == conns },
		"the server to see a raw client leave")
}

// TestRoomMembersPerAddr: seven idle sockets from one address beside the
// room's host do not fill a room of eight: an honest player gets in every
// time (0 of 20 before the cap).
func TestRoomMembersPerAddr(t *testing.T) {
	clock := newFakeClock()
	h := start(t, ServerConfig{Now: clock.Now, ClientAddr: asAddr})
	_, refused := h.rawTryJoin("/room/r?as=host")
	require.Empty(t, refused)
	held := 0
	for range 7 {
		if _, refused := h.rawTryJoin("/room/r?as=squatter"); refused == "" {
			held++
		}
	}
	honest := 0
	for range 20 {
		clock.Advance(time.Second) // the room's join rate is not what this tests
		if ws, refused := h.rawTryJoin("/room/r?as=honest"); refused == "" {
			honest++
			h.leaveRaw(ws, 1+held)
		} else {
			t.Logf("honest join refused: %s", refused)
		}
	}
	t.Logf("one address holds %d of the room's 8 places; honest joins: %d of 20", held, honest)
	require.Equal(t, 20, honest, "honest joins")
	require.Equal(t, 4, held, "places one address holds: half the room, the default")

	// The cap is the squatter's alone, and leaving frees a place.
	_, refused = h.rawTryJoin("/room/r?as=squatter")
	require.Equal(t, http.StatusText(http.StatusTooManyRequests), refused)
	_, refused = h.rawTryJoin("/room/elsewhere?as=squatter")
	require.Empty(t, refused, "the cap is per room")
}

func TestRoomMembersPerAddrConfig(t *testing.T) {
	h := start(t, ServerConfig{MaxMembersPerAddr: 1, ClientAddr: asAddr})
	h.dial("/room/r?as=x")
	_, err := h.tryDial("/room/r?as=x")
	require.ErrorIs(t, err, client.ErrTooManyConnections)
	var he *client.HTTPError
	require.ErrorAs(t, err, &he)
	require.Equal(t, "signaling: too many connections from this address in this room", he.Message)
	h.dial("/room/r?as=y")
	h.raw("/room/s?as=x") // a socket that has not joined counts all the same
	_, err = h.tryDial("/room/s?as=x")
	require.ErrorIs(t, err, client.ErrTooManyConnections)
	// Loopback is one machine (tests, the demo): not capped.
	h2 := start(t, ServerConfig{MaxMembersPerAddr: 1})
	h2.dial("/room/r")
	h2.dial("/room/r")
	_, err = NewServer(ServerConfig{MaxMembersPerAddr: -1})
	require.ErrorIs(t, err, client.ErrConfig)
}

// TestRoomJoinBudgetFair: two addresses joining and leaving a room at their
// per-address rate (2 a second each, twice the room's rate) do not lock a
// newcomer out: an honest player trying every 2 s gets in every time (3 to
// 8 of 20 in the review, before the room's budget was shared fairly).
func TestRoomJoinBudgetFair(t *testing.T) {
	clock := newFakeClock()
	h := start(t, ServerConfig{Now: clock.Now, ClientAddr: asAddr})
	_, refused := h.rawTryJoin("/room/r?as=host")
	require.Empty(t, refused)
	honest, churned := 0, 0
	for step := range 80 { // 40 s in steps of 0.5 s
		clock.Advance(500 * time.Millisecond)
		for _, as := range []string{"churn1", "churn2"} {
			if ws, refused := h.rawTryJoin("/room/r?as=" + as); refused == "" {
				churned++
				h.leaveRaw(ws, 1)
			}
		}
		if step%4 == 3 {
			if ws, refused := h.rawTryJoin("/room/r?as=honest"); refused == "" {
				honest++
				h.leaveRaw(ws, 1)
			} else {
				t.Logf("at %.1f s the honest join was refused: %s", float64(step+1)/2, refused)
			}
		}
	}
	t.Logf("honest joins: %d of 20; the two churners joined %d times in 40 s", honest, churned)
	require.Equal(t, 20, honest, "honest joins")
	// The room's budget still bounds what churn costs its members: 16 at
	// once and 2 a second, whoever spends it.
	require.LessOrEqual(t, churned+honest, 16+2*40)
}
