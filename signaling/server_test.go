package signaling

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/signaling/internal/wire"
)

func TestJoinRelayLeave(t *testing.T) {
	ice := []client.ICEServer{
		{URLs: []string{"stun:stun.example.org:3478"}},
		{URLs: []string{"turn:turn.example.org:3478?transport=udp"}, Username: "u", Credential: "p"},
	}
	h := start(t, ServerConfig{ICEServers: ice})
	a := h.dial("/room/lobby")
	require.Empty(t, a.Peers())
	require.Equal(t, "lobby", a.Room())
	require.Equal(t, ice, a.ICEServers())

	b := h.dial("/room/lobby")
	require.Equal(t, []string{a.ID()}, b.Peers())
	require.Equal(t, client.Event{Kind: client.PeerJoined, Peer: b.ID()}, next(t, a))

	c := h.dial("/room/lobby")
	require.Equal(t, []string{a.ID(), b.ID()}, c.Peers(), "oldest first")
	require.Equal(t, client.Event{Kind: client.PeerJoined, Peer: c.ID()}, next(t, a))
	require.Equal(t, client.Event{Kind: client.PeerJoined, Peer: c.ID()}, next(t, b))
	require.Len(t, map[string]bool{a.ID(): true, b.ID(): true, c.ID(): true}, 3, "ids are distinct")

	// Offer, answer, candidate, each to its addressee only.
	send(t, a, c.ID(), offer("from-a"))
	ev := next(t, c)
	require.Equal(t, client.SignalReceived, ev.Kind)
	require.Equal(t, a.ID(), ev.Peer)
	require.Equal(t, offer("from-a"), ev.Signal)
	answer := client.Signal{Kind: client.SignalAnswer, Payload: json.RawMessage(`"v=0 answer"`)}
	send(t, c, a.ID(), answer)
	ev = next(t, a)
	require.Equal(t, client.Event{Kind: client.SignalReceived, Peer: c.ID(), Signal: answer}, ev)
	cand := client.Signal{Kind: client.SignalCandidate, Payload: json.RawMessage(`{"candidate":"candidate:1 1 udp 1 127.0.0.1 5000 typ host"}`)}
	send(t, b, c.ID(), cand)
	require.Equal(t, client.Event{Kind: client.SignalReceived, Peer: b.ID(), Signal: cand}, next(t, c))

	// Leaving is heard by the rest of the room.
	require.NoError(t, c.Close())
	require.NoError(t, c.Close(), "idempotent")
	require.NoError(t, ended(t, c))
	require.ErrorIs(t, c.Send(context.Background(), a.ID(), offer("x")), client.ErrClosed)
	require.Equal(t, client.Event{Kind: client.PeerLeft, Peer: c.ID()}, next(t, a))
	require.Equal(t, client.Event{Kind: client.PeerLeft, Peer: c.ID()}, next(t, b))
	require.ErrorIs(t, a.Send(context.Background(), c.ID(), offer("late")), client.ErrUnknownPeer, "the client knows c left")

	st := h.srv.Stats()
	require.Equal(t, uint64(3), st.Relayed)
	require.Equal(t, 1, st.Rooms)
}

func TestNextGroupsJoiners(t *testing.T) {
	h := start(t, ServerConfig{})
	a := h.dial("/room?next=2")
	b := h.dial("/room?next=2")
	c := h.dial("/room?next=2")
	d := h.dial("/room?next=3")
	require.Equal(t, a.Room(), b.Room())
	require.Equal(t, []string{a.ID()}, b.Peers())
	require.NotEqual(t, a.Room(), c.Room(), "a full group is closed")
	require.Empty(t, c.Peers())
	require.NotEqual(t, c.Room(), d.Room(), "groups of another size are separate")
	e := h.dial("/room?next=2")
	require.Equal(t, c.Room(), e.Room())
	require.Equal(t, []string{c.ID()}, e.Peers())
	require.Equal(t, client.Event{Kind: client.PeerJoined, Peer: e.ID()}, next(t, c))

	// A generated room is joinable by name only up to its size.
	_, err := h.tryDial("/room/" + a.Room())
	require.ErrorIs(t, err, client.ErrRoomFull)
}

func TestRelayOutsideRoomRefused(t *testing.T) {
	h := start(t, ServerConfig{})
	a := h.dial("/room/one")
	b := h.dial("/room/two")

	// The client refuses a peer it has not heard of.
	require.ErrorIs(t, a.Send(context.Background(), b.ID(), offer("x")), client.ErrUnknownPeer)

	// The server refuses it too, for a client that tries anyway, and says so
	// without closing the connection.
	ws, joined := h.rawJoin("/room/one")
	require.Equal(t, client.Event{Kind: client.PeerJoined, Peer: joined.ID}, next(t, a))
	rawWrite(t, ws, `{"v":1,"type":"signal","peer":"`+b.ID()+`","kind":"offer","payload":{}}`)
	e := rawRead(t, ws)
	require.Equal(t, typeError, e.Type)
	require.Equal(t, errCodeUnknownPeer, e.Code)
	require.Equal(t, b.ID(), e.Peer)
	// An id nobody holds, and oneself, are refused the same way.
	rawWrite(t, ws, `{"v":1,"type":"signal","peer":"0123456789abcdef","kind":"offer","payload":{}}`)
	require.Equal(t, errCodeUnknownPeer, rawRead(t, ws).Code)

	// Still connected: a signal inside the room goes through.
	rawWrite(t, ws, `{"v":1,"type":"signal","peer":"`+a.ID()+`","kind":"offer","payload":{"ok":true}}`)
	ev := next(t, a)
	require.Equal(t, client.SignalReceived, ev.Kind)
	require.JSONEq(t, `{"ok":true}`, string(ev.Signal.Payload))
	st := h.srv.Stats()
	require.Equal(t, uint64(2), st.Refused)
	require.Equal(t, uint64(1), st.Relayed, "b got nothing")
}

func TestHealthAndRoutes(t *testing.T) {
	h := start(t, ServerConfig{})
	resp, err := http.Get(h.hs.URL + "/")
	require.NoError(t, err)
	var health struct {
		Service  string `json:"service"`
		Protocol int    `json:"protocol"`
		Status   string `json:"status"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&health))
	resp.Body.Close()
	require.Equal(t, "rollnet-signal", health.Service)
	require.Equal(t, wire.ProtocolVersion, health.Protocol)
	require.Equal(t, "ok", health.Status)

	resp, err = http.Get(h.hs.URL + "/healthz")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "ok\n", string(body))

	resp, err = http.Get(h.hs.URL + "/nope")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)

	for _, path := range []string{
		"/room", "/room/", "/room/a%20b", "/room/" + strings.Repeat("a", 65),
		"/room?next=1", "/room?next=9", "/room?next=02", "/room?next=x", "/room/x?next=2",
	} {
		_, err := h.tryDial(path)
		require.ErrorIs(t, err, wire.ErrBadRequest, "%q", path)
		var he *client.HTTPError
		require.ErrorAs(t, err, &he)
		require.Equal(t, http.StatusBadRequest, he.Status)
		require.Contains(t, he.Message, "signaling:")
	}
	require.Equal(t, uint64(9), h.srv.Stats().Rejected)
}

func TestShutdown(t *testing.T) {
	// raw does not read during Close, so its close handshake never ends:
	// Close cuts it after CloseTimeout.
	h := start(t, ServerConfig{Tuning: ServerTuning{CloseTimeout: 50 * time.Millisecond}})
	a := h.dial("/room/x")
	b := h.dial("/room/x")
	raw := h.raw("/room/x") // not joined yet
	require.NoError(t, h.srv.Close())
	require.ErrorIs(t, ended(t, a), client.ErrServerClosing)
	require.ErrorIs(t, ended(t, b), client.ErrServerClosing)
	code, _ := rawCloseStatus(t, raw)
	require.Equal(t, 1001, int(code))

	_, err := h.tryDial("/room/x")
	require.ErrorIs(t, err, client.ErrServerClosing)
	resp, err := http.Get(h.hs.URL + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.Equal(t, 0, h.srv.Stats().Connections)
}

func TestNewServerConfig(t *testing.T) {
	for name, cfg := range map[string]ServerConfig{
		"negative room":    {MaxRoomSize: -1},
		"room of one":      {MaxRoomSize: 1},
		"tiny message":     {Tuning: ServerTuning{MaxMessageSize: 100}},
		"negative rate":    {Tuning: ServerTuning{MessageRate: -1}},
		"negative queue":   {Tuning: ServerTuning{SendQueue: -1}},
		"negative ping":    {Tuning: ServerTuning{PingInterval: -1}},
		"negative join":    {Tuning: ServerTuning{JoinTimeout: -1}},
		"ICE without URL":  {ICEServers: []client.ICEServer{{}}},
		"ICE bad scheme":   {ICEServers: []client.ICEServer{{URLs: []string{"http://x"}}}},
		"TURN no password": {ICEServers: []client.ICEServer{{URLs: []string{"turn:x:3478"}, Username: "u"}}},
	} {
		_, err := NewServer(cfg)
		require.ErrorIs(t, err, client.ErrConfig, name)
	}
	srv, err := NewServer(ServerConfig{})
	require.NoError(t, err)
	require.Equal(t, defaultMaxRoomSize, srv.cfg.MaxRoomSize)
	require.Equal(t, 16<<10, srv.cfg.Tuning.MaxMessageSize)
	require.Equal(t, defaultSendQueue, srv.cfg.Tuning.SendQueue)
	require.Equal(t, defaultPingInterval, srv.cfg.Tuning.PingInterval)
	require.NoError(t, srv.Close())
}

func TestTURNCredentialsMinted(t *testing.T) {
	clock := newFakeClock()
	secret := []byte("turn-secret")
	h := start(t, ServerConfig{
		Now:        clock.Now,
		TURNSecret: secret,
		ICEServers: []client.ICEServer{
			{URLs: []string{"stun:stun.example.org:3478"}},
			{URLs: []string{"turn:turn.example.org:3478"}},
			{URLs: []string{"turns:turn.example.org:5349"}, Username: "static", Credential: "kept"},
		},
	})
	a := h.dial("/room/t")
	ice := a.ICEServers()
	require.Len(t, ice, 3)
	require.Empty(t, ice[0].Username, "STUN needs none")
	wantUser := fmt.Sprint(clock.Now().Add(defaultTURNCredentialTTL).Unix()) + ":" + a.ID()
	require.Equal(t, wantUser, ice[1].Username)
	// The credential coturn computes for use-auth-secret.
	m := hmac.New(sha1.New, secret)
	m.Write([]byte(wantUser))
	require.Equal(t, base64.StdEncoding.EncodeToString(m.Sum(nil)), ice[1].Credential)
	require.Equal(t, client.ICEServer{URLs: []string{"turns:turn.example.org:5349"}, Username: "static", Credential: "kept"}, ice[2])

	b := h.dial("/room/t")
	require.NotEqual(t, ice[1].Username, b.ICEServers()[1].Username, "per client")

	// Without the secret, a TURN server without credentials is a config error.
	_, err := NewServer(ServerConfig{ICEServers: []client.ICEServer{{URLs: []string{"turn:x:3478"}}}})
	require.ErrorIs(t, err, client.ErrConfig)
}

func TestRelayKeepsPayloadBytes(t *testing.T) {
	h := start(t, ServerConfig{})
	a := h.dial("/room/html")
	// A raw sender at the size limit, with characters json.Marshal escapes.
	ws, _ := h.rawJoin("/room/html")
	require.Equal(t, client.PeerJoined, next(t, a).Kind)
	payload := `"` + strings.Repeat("<>&", (defaultMaxMessageSize-200)/3) + "\u2028\""
	msg := `{"v":1,"type":"signal","peer":"` + a.ID() + `","kind":"offer","payload":` + payload + `}`
	require.LessOrEqual(t, len(msg), defaultMaxMessageSize)
	rawWrite(t, ws, msg)
	ev := next(t, a)
	require.Equal(t, client.SignalReceived, ev.Kind)
	require.Equal(t, payload, string(ev.Signal.Payload), "relayed byte for byte")

	// Client to client, the same.
	b := h.dial("/room/html")
	require.Equal(t, client.PeerJoined, next(t, a).Kind)
	send(t, a, b.ID(), client.Signal{Kind: client.SignalOffer, Payload: json.RawMessage(payload)})
	require.Equal(t, payload, string(next(t, b).Signal.Payload))
}

func TestClientReadLimitFollowsServer(t *testing.T) {
	// A server that allows 2 MiB messages: a client must read a relayed
	// signal of that size (its fixed 1 MiB read limit closed it).
	const max = 2 << 20
	h := start(t, ServerConfig{Tuning: ServerTuning{MaxMessageSize: max}})
	a := h.dial("/room/big")
	b := h.dial("/room/big")
	require.Equal(t, client.PeerJoined, next(t, a).Kind)
	payload := json.RawMessage(`"` + strings.Repeat("x", max-200) + `"`)
	send(t, a, b.ID(), client.Signal{Kind: client.SignalOffer, Payload: payload})
	ev := next(t, b)
	require.Equal(t, client.SignalReceived, ev.Kind)
	require.Equal(t, len(payload), len(ev.Signal.Payload))
	require.Equal(t, uint64(0), h.srv.Stats().TooBig)
}

func TestHandleAddsRoutes(t *testing.T) {
	h := start(t, ServerConfig{})
	h.srv.Handle("/turn", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("relay counts\n"))
	}))
	resp, err := http.Get(h.hs.URL + "/turn")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, "relay counts\n", string(body))
	require.Panics(t, func() { h.srv.Handle("/healthz", http.NotFoundHandler()) })
	h.dial("/room/still-mine")
}
