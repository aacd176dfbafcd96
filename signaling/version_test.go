//go:build !js

package signaling

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/signaling/internal/wire"
)

// TestProtocolVersionsMeet: a client of version 1 (a page written before
// version 2, or an older rollnet) and clients of version 2 share a room.
// Each hears the server in its own version, in the exact shape that
// version had (an old Go client refuses unknown fields), and a client of
// version 2 learns which version each peer speaks.
func TestProtocolVersionsMeet(t *testing.T) {
	h := start(t, ServerConfig{})
	old := h.raw("/room/mixed")
	rawWrite(t, old, `{"v":1,"type":"join"}`)
	oldJoin := rawRead(t, old)
	require.Equal(t, 1, oldJoin.V)
	require.Nil(t, oldJoin.Protocols, "no field of version 2 to a client of version 1")

	c := h.dial("/room/mixed")
	require.Equal(t, []string{oldJoin.ID}, c.Peers())
	require.Equal(t, 1, c.PeerProtocol(oldJoin.ID))
	require.Equal(t, `{"v":1,"type":"peer-joined","peer":"`+c.ID()+`"}`, rawReadBytes(t, old))

	// Signals cross versions with their payloads as they are.
	cand := json.RawMessage(`{"candidate":"candidate:1 1 udp 2130706431 127.0.0.1 5000 typ host","sdpMid":"0"}`)
	send(t, c, oldJoin.ID, client.Signal{Kind: client.SignalCandidate, Payload: cand})
	require.Equal(t, `{"v":1,"type":"signal","peer":"`+c.ID()+`","kind":"candidate","payload":`+string(cand)+`}`,
		rawReadBytes(t, old))
	rawWrite(t, old, `{"v":1,"type":"signal","peer":"`+c.ID()+`","kind":"answer","payload":{"type":"answer","sdp":"x"}}`)
	ev := next(t, c)
	require.Equal(t, client.Event{Kind: client.SignalReceived, Peer: oldJoin.ID,
		Signal: client.Signal{Kind: client.SignalAnswer, Payload: json.RawMessage(`{"type":"answer","sdp":"x"}`)}}, ev)

	// A newcomer of version 2: the old client hears of it in version 1,
	// the new one with its version.
	d := h.dial("/room/mixed")
	require.Equal(t, []string{oldJoin.ID, c.ID()}, d.Peers())
	require.Equal(t, 1, d.PeerProtocol(oldJoin.ID))
	require.Equal(t, 2, d.PeerProtocol(c.ID()))
	require.Equal(t, client.Event{Kind: client.PeerJoined, Peer: d.ID()}, next(t, c))
	require.Equal(t, 2, c.PeerProtocol(d.ID()))
	require.Equal(t, `{"v":1,"type":"peer-joined","peer":"`+d.ID()+`"}`, rawReadBytes(t, old))
	require.Equal(t, 0, c.PeerProtocol("0123456789abcdef"), "not in the room")

	// A client keeps the version it joined with.
	rawWrite(t, old, `{"v":2,"type":"signal","peer":"`+c.ID()+`","kind":"offer","payload":{}}`)
	code, _ := rawCloseStatus(t, old)
	require.Equal(t, wire.CodeMalformed, int(code))
	require.Equal(t, client.Event{Kind: client.PeerLeft, Peer: oldJoin.ID}, next(t, c))
}

// TestProtocolVersionRefused: a join in a version the server does not
// speak is closed with CodeProtocolVersion, and a Client refused by a
// server that does not speak its version (one older than version 2 closes
// the join with CodeMalformed) says so.
func TestProtocolVersionRefused(t *testing.T) {
	h := start(t, ServerConfig{})
	ws := h.raw("/room/v")
	rawWrite(t, ws, `{"v":3,"type":"join"}`)
	code, reason := rawCloseStatus(t, ws)
	require.Equal(t, wire.CodeProtocolVersion, int(code))
	require.Equal(t, client.ErrProtocolVersion.Error(), reason)

	for _, code := range []websocket.StatusCode{wire.CodeMalformed, wire.CodeProtocolVersion} {
		url := fakeServer(t, func(ctx context.Context, ws *websocket.Conn) {
			_ = ws.Close(code, "signaling: malformed message")
		})
		_, err := client.Dial(context.Background(), url, client.Config{})
		require.ErrorIs(t, err, client.ErrProtocolVersion)
		require.ErrorContains(t, err, "does not speak version 2")
	}

	resp, err := http.Get(h.hs.URL + "/")
	require.NoError(t, err)
	defer resp.Body.Close()
	var health struct {
		Protocol  int   `json:"protocol"`
		Protocols []int `json:"protocols"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&health))
	require.Equal(t, 2, health.Protocol)
	require.Equal(t, []int{1, 2}, health.Protocols)
}
