package signaling

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/signaling/internal/wire"
)

// stillServes checks the server works for everyone else: two fresh clients
// meet in a fresh room and exchange a signal.
func stillServes(t *testing.T, h *harness, room string) {
	t.Helper()
	a := h.dial("/room/" + room)
	b := h.dial("/room/" + room)
	require.Equal(t, client.PeerJoined, next(t, a).Kind)
	send(t, b, a.ID(), offer("still-up"))
	require.Equal(t, offer("still-up"), next(t, a).Signal)
	require.NoError(t, a.Close())
	require.NoError(t, b.Close())
}

func TestLimitRoomSize(t *testing.T) {
	h := start(t, ServerConfig{MaxRoomSize: 2})
	a := h.dial("/room/full")
	b := h.dial("/room/full")
	_, err := h.tryDial("/room/full")
	require.ErrorIs(t, err, client.ErrRoomFull)
	var ce *client.CloseError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, wire.CodeRoomFull, ce.Code)
	require.Equal(t, "signaling: room full", ce.Reason)
	require.Equal(t, uint64(1), h.srv.Stats().RoomFull)

	// The two inside never heard of the third and still talk.
	require.Equal(t, client.Event{Kind: client.PeerJoined, Peer: b.ID()}, next(t, a))
	send(t, b, a.ID(), offer("hi"))
	require.Equal(t, client.SignalReceived, next(t, a).Kind)
	// next=N above the room size is refused before the upgrade.
	_, err = h.tryDial("/room?next=3")
	require.ErrorIs(t, err, wire.ErrBadRequest)
	stillServes(t, h, "other")
}

func TestLimitMessageSize(t *testing.T) {
	h := start(t, ServerConfig{Tuning: ServerTuning{MaxMessageSize: 1024}})
	a := h.dial("/room/big")
	b := h.dial("/room/big")
	// The client refuses to send what the server would refuse: it learned
	// the limit at join.
	big := client.Signal{Kind: client.SignalOffer, Payload: json.RawMessage(`"` + strings.Repeat("x", 1024) + `"`)}
	require.ErrorIs(t, b.Send(context.Background(), a.ID(), big), wire.ErrMessageTooBig)

	// A raw connection that sends it anyway is closed with 1009.
	ws, _ := h.rawJoin("/room/big")
	rawWrite(t, ws, `{"v":1,"type":"signal","peer":"`+a.ID()+`","kind":"offer","payload":"`+strings.Repeat("x", 1024)+`"}`)
	code, _ := rawCloseStatus(t, ws)
	require.Equal(t, websocket.StatusMessageTooBig, code)
	eventually(t, func() bool { return h.srv.Stats().TooBig == 1 }, "counted")
	require.Equal(t, (&client.CloseError{Code: 1009}).Is(wire.ErrMessageTooBig), true)

	// Just under the limit goes through.
	fits := client.Signal{Kind: client.SignalOffer, Payload: json.RawMessage(`"` + strings.Repeat("x", 900) + `"`)}
	send(t, b, a.ID(), fits)
	for ev := next(t, a); ev.Kind != client.SignalReceived; ev = next(t, a) {
	}
	stillServes(t, h, "other")
}

func TestLimitMessageRate(t *testing.T) {
	clock := newFakeClock()
	h := start(t, ServerConfig{Now: clock.Now, Tuning: ServerTuning{MessageRate: 1, MessageBurst: 3}})
	b := h.dial("/room/rate")
	a := h.dial("/room/rate") // the join is 1 of a's 3
	require.Equal(t, client.PeerJoined, next(t, b).Kind)
	// a contacts b, who was there first: a pays.
	send(t, a, b.ID(), offer("1"))
	send(t, a, b.ID(), offer("2"))
	require.Equal(t, offer("1"), next(t, b).Signal)
	require.Equal(t, offer("2"), next(t, b).Signal)
	// The clock stands still: the bucket is empty, the next message closes a.
	send(t, a, b.ID(), offer("3"))
	err := ended(t, a)
	require.ErrorIs(t, err, wire.ErrRateLimited)
	require.Equal(t, client.Event{Kind: client.PeerLeft, Peer: a.ID()}, next(t, b))
	require.Equal(t, uint64(1), h.srv.Stats().RateLimited)

	// c's bucket refills with time: one message per second.
	c := h.dial("/room/rate")
	require.Equal(t, client.PeerJoined, next(t, b).Kind)
	send(t, c, b.ID(), offer("c1"))
	send(t, c, b.ID(), offer("c2"))
	clock.Advance(time.Second)
	send(t, c, b.ID(), offer("c3"))
	require.Equal(t, offer("c1"), next(t, b).Signal)
	require.Equal(t, offer("c2"), next(t, b).Signal)
	require.Equal(t, offer("c3"), next(t, b).Signal)
	clock.Advance(time.Hour) // refills to the burst, no more
	stillServes(t, h, "other")
}

func TestLimitConnsPerAddr(t *testing.T) {
	h := start(t, ServerConfig{Tuning: ServerTuning{MaxConnsPerAddr: 2}})
	a := h.dial("/room/x")
	h.raw("/room/x") // not joined: counts all the same
	_, err := h.tryDial("/room/x")
	require.ErrorIs(t, err, client.ErrTooManyConnections)
	var he *client.HTTPError
	require.ErrorAs(t, err, &he)
	require.Equal(t, http.StatusTooManyRequests, he.Status)
	require.Contains(t, he.Message, "too many connections from this address")

	// One leaves, one more may come.
	require.NoError(t, a.Close())
	eventually(t, func() bool { return h.srv.Stats().Connections == 1 }, "a gone")
	h.dial("/room/x")
}

func TestLimitConnsTotal(t *testing.T) {
	h := start(t, ServerConfig{Tuning: ServerTuning{MaxConns: 1}})
	a := h.dial("/room/x")
	_, err := h.tryDial("/room/y")
	require.ErrorIs(t, err, client.ErrTooManyConnections)
	require.NoError(t, a.Close())
	eventually(t, func() bool { return h.srv.Stats().Connections == 0 }, "a gone")
	h.dial("/room/y")
}

func TestLimitJoinTimeout(t *testing.T) {
	// Long enough for a client on a loaded machine to join in time.
	h := start(t, ServerConfig{Tuning: ServerTuning{JoinTimeout: 300 * time.Millisecond, CloseTimeout: 50 * time.Millisecond}})
	ws := h.raw("/room/slow")
	code, reason := rawCloseStatus(t, ws)
	require.Equal(t, wire.CodeJoinTimeout, int(code))
	require.Equal(t, wire.ErrJoinTimeout.Error(), reason)
	require.Equal(t, uint64(1), h.srv.Stats().JoinTimeouts)
	// A client that joins in time stays.
	a := h.dial("/room/slow")
	b := h.dial("/room/slow")
	require.Equal(t, client.PeerJoined, next(t, a).Kind)
	send(t, b, a.ID(), offer("in time"))
	require.Equal(t, client.SignalReceived, next(t, a).Kind)
	require.Equal(t, uint64(1), h.srv.Stats().JoinTimeouts)
}

func TestLimitPingTimeout(t *testing.T) {
	h := start(t, ServerConfig{Tuning: ServerTuning{
		PingInterval: 10 * time.Millisecond,
		PingTimeout:  300 * time.Millisecond, // ample for a client that reads, on a loaded machine
		CloseTimeout: 50 * time.Millisecond,
	}})
	a := h.dial("/room/ping")
	// A raw connection that joins, then stops reading: it answers no ping.
	ws, joined := h.rawJoin("/room/ping")
	require.Equal(t, client.Event{Kind: client.PeerJoined, Peer: joined.ID}, next(t, a))
	require.Equal(t, client.Event{Kind: client.PeerLeft, Peer: joined.ID}, next(t, a), "dropped")
	require.Equal(t, uint64(1), h.srv.Stats().PingTimeouts)
	// When it reads again, it finds why.
	code, reason := rawCloseStatus(t, ws)
	require.Equal(t, wire.CodePingTimeout, int(code))
	require.Equal(t, wire.ErrPingTimeout.Error(), reason)

	// The client, which reads, answered every ping meanwhile and is still
	// connected and served.
	b := h.dial("/room/ping")
	require.Equal(t, client.PeerJoined, next(t, a).Kind)
	send(t, b, a.ID(), offer("alive"))
	require.Equal(t, client.SignalReceived, next(t, a).Kind)
	require.Equal(t, uint64(1), h.srv.Stats().PingTimeouts)
}

func TestLimitSlowConsumer(t *testing.T) {
	h := startWith(t, ServerConfig{
		Tuning: ServerTuning{SendQueue: 4, MessageRate: 1 << 20, MessageBurst: 1 << 20, CloseTimeout: 50 * time.Millisecond},
	}, func(l net.Listener) net.Listener { return smallSendBuffers{l} })
	a := h.dial("/room/slow")
	// A raw connection that joins and never reads again, while a floods it.
	_, joined := h.rawJoin("/room/slow")
	require.Equal(t, client.Event{Kind: client.PeerJoined, Peer: joined.ID}, next(t, a))
	payload := json.RawMessage(`"` + strings.Repeat("x", 15<<10) + `"`)
	// Flood until the server drops the reader, then stop: every signal
	// that races the drop earns a a refusal, and a loaded machine let a
	// send thousands of them, enough to make a a slow consumer too (4004).
	sent := 0
	for h.srv.Stats().SlowConsumers == 0 {
		if err := a.Send(context.Background(), joined.ID, client.Signal{Kind: client.SignalOffer, Payload: payload}); err != nil {
			require.ErrorIs(t, err, client.ErrUnknownPeer)
		}
		sent++
		require.Less(t, sent, 100000, "never dropped")
	}
	ev := next(t, a)
	for ; ev.Kind == client.ServerError; ev = next(t, a) {
		require.ErrorIs(t, ev.Err, client.ErrUnknownPeer) // a signal that raced the drop
	}
	require.Equal(t, client.Event{Kind: client.PeerLeft, Peer: joined.ID}, ev)
	t.Logf("dropped after %d messages of 15 KiB", sent)
	require.Equal(t, uint64(1), h.srv.Stats().SlowConsumers)
	eventually(t, func() bool { return h.srv.Stats().Connections == 1 }, "slow consumer gone")
	// a, which sent all that, is still served, and so is everyone else.
	b := h.dial("/room/slow")
	// a may still hear refusals of the signals that raced the drop.
	nextOfA := func() client.Event {
		ev := next(t, a)
		for ; ev.Kind == client.ServerError; ev = next(t, a) {
			require.ErrorIs(t, ev.Err, client.ErrUnknownPeer)
			require.Equal(t, joined.ID, ev.Peer)
		}
		return ev
	}
	require.Equal(t, client.Event{Kind: client.PeerJoined, Peer: b.ID()}, nextOfA())
	send(t, b, a.ID(), offer("still"))
	require.Equal(t, client.SignalReceived, nextOfA().Kind)
	stillServes(t, h, "other")
}

func TestMalformedClosesConnection(t *testing.T) {
	h := start(t, ServerConfig{})
	for name, msgs := range map[string][]string{
		"not JSON":            {`hello`},
		"version changed":     {`{"v":1,"type":"join"}`, `{"v":2,"type":"signal","peer":"0123456789abcdef","kind":"offer","payload":{}}`},
		"no version":          {`{"type":"join"}`},
		"unknown type":        {`{"v":1,"type":"bogus"}`},
		"unknown field":       {`{"v":1,"type":"join","x":1}`},
		"field of other type": {`{"v":1,"type":"join","peer":"0123456789abcdef"}`},
		"trailing data":       {`{"v":1,"type":"join"} {}`},
		"server's type":       {`{"v":1,"type":"peer-joined","peer":"0123456789abcdef"}`},
		"signal before join":  {`{"v":1,"type":"signal","peer":"0123456789abcdef","kind":"offer","payload":{}}`},
		"join twice":          {`{"v":1,"type":"join"}`, `{"v":1,"type":"join"}`},
		"bad kind":            {`{"v":1,"type":"join"}`, `{"v":1,"type":"signal","peer":"0123456789abcdef","kind":"bye","payload":{}}`},
		"null payload":        {`{"v":1,"type":"join"}`, `{"v":1,"type":"signal","peer":"0123456789abcdef","kind":"offer","payload":null}`},
		"no payload":          {`{"v":1,"type":"join"}`, `{"v":1,"type":"signal","peer":"0123456789abcdef","kind":"offer"}`},
		"bad peer id":         {`{"v":1,"type":"join"}`, `{"v":1,"type":"signal","peer":"../x","kind":"offer","payload":{}}`},
		"array":               {`[1,2]`},
	} {
		t.Run(name, func(t *testing.T) {
			ws := h.raw("/room/m")
			for _, m := range msgs {
				rawWrite(t, ws, m)
			}
			code, reason := rawCloseStatus(t, ws)
			require.Equal(t, wire.CodeMalformed, int(code))
			require.Equal(t, wire.ErrMalformed.Error(), reason)
		})
	}
	ws := h.raw("/room/m")
	ctx := context.Background()
	require.NoError(t, ws.Write(ctx, websocket.MessageBinary, []byte{0xff, 0x00}))
	code, _ := rawCloseStatus(t, ws)
	require.Equal(t, wire.CodeMalformed, int(code))
	stillServes(t, h, "other")
}

func TestToken(t *testing.T) {
	clock := newFakeClock()
	secret := []byte("s3cret")
	h := start(t, ServerConfig{TokenSecret: secret, Now: clock.Now})
	exp := clock.Now().Add(time.Minute)
	good := Token(secret, "vip", exp)

	c := h.dial("/room/vip?token=" + good)
	require.Equal(t, "vip", c.Room())
	h.dial("/room?next=2&token=" + Token(secret, "next=2", exp))

	for name, tc := range map[string]struct {
		path   string
		status int
	}{
		"missing":        {"/room/vip", 401},
		"empty":          {"/room/vip?token=", 401},
		"other room":     {"/room/vip?token=" + Token(secret, "other", exp), 403},
		"other secret":   {"/room/vip?token=" + Token([]byte("guess"), "vip", exp), 403},
		"expired":        {"/room/vip?token=" + Token(secret, "vip", clock.Now()), 403},
		"garbage":        {"/room/vip?token=abc", 403},
		"next of size 3": {"/room?next=3&token=" + Token(secret, "next=2", exp), 403},
		"tampered":       {"/room/vip?token=" + tamper(good), 403},
	} {
		_, err := h.tryDial(tc.path)
		require.ErrorIs(t, err, client.ErrUnauthorized, name)
		var he *client.HTTPError
		require.ErrorAs(t, err, &he, "refused before the upgrade: %s", name)
		require.Equal(t, tc.status, he.Status, name)
	}
	require.Equal(t, 2, h.srv.Stats().Connections)

	// The same token expires with the clock.
	clock.Advance(time.Minute)
	_, err := h.tryDial("/room/vip?token=" + good)
	require.ErrorIs(t, err, client.ErrUnauthorized)
}

// TestTokenRooms: with TokenRooms, a room under one of its prefixes
// refuses a join without a valid token for it, before the upgrade, and
// takes one with; the other rooms and next=N stay open. Two addresses
// can fill an open room of 8 (4 places each); a room that requires a
// token holds only its token's holders.
func TestTokenRooms(t *testing.T) {
	clock := newFakeClock()
	secret := []byte("s3cret")
	h := start(t, ServerConfig{TokenSecret: secret, TokenRooms: []string{"ranked-", "vip"}, Now: clock.Now})
	exp := clock.Now().Add(time.Minute)

	require.Equal(t, "lobby", h.dial("/room/lobby").Room(), "a room under no prefix is open")
	h.dial("/room?next=2")
	require.Equal(t, "ranked-7", h.dial("/room/ranked-7?token="+Token(secret, "ranked-7", exp)).Room())
	require.Equal(t, "vip2", h.dial("/room/vip2?token="+Token(secret, "vip2", exp)).Room())
	for name, tc := range map[string]struct {
		path   string
		status int
	}{
		"missing":       {"/room/ranked-7", 401},
		"empty":         {"/room/ranked-7?token=", 401},
		"prefix only":   {"/room/vip", 401},
		"other room":    {"/room/ranked-7?token=" + Token(secret, "ranked-8", exp), 403},
		"open room's":   {"/room/ranked-7?token=" + Token(secret, "lobby", exp), 403},
		"other secret":  {"/room/ranked-7?token=" + Token([]byte("guess"), "ranked-7", exp), 403},
		"expired":       {"/room/ranked-7?token=" + Token(secret, "ranked-7", clock.Now()), 403},
		"garbage":       {"/room/ranked-7?token=abc.def", 403},
		"tampered":      {"/room/ranked-7?token=" + tamper(Token(secret, "ranked-7", exp)), 403},
		"oversized":     {"/room/ranked-7?token=" + strings.Repeat("1", 200), 403},
		"no expiry":     {"/room/ranked-7?token=." + Token(secret, "ranked-7", exp)[11:], 403},
		"signed expiry": {"/room/ranked-7?token=1" + Token(secret, "ranked-7", exp), 403},
	} {
		_, err := h.tryDial(tc.path)
		require.ErrorIs(t, err, client.ErrUnauthorized, name)
		var he *client.HTTPError
		require.ErrorAs(t, err, &he, "refused before the upgrade: %s", name)
		require.Equal(t, tc.status, he.Status, name)
	}
	require.Equal(t, 4, h.srv.Stats().Connections)

	_, err := NewServer(ServerConfig{TokenRooms: []string{"ranked-"}})
	require.ErrorIs(t, err, wire.ErrConfig, "TokenRooms without a secret would leave the rooms open")
	_, err = NewServer(ServerConfig{TokenSecret: secret, TokenRooms: []string{"a/b"}})
	require.ErrorIs(t, err, wire.ErrConfig)
}

func tamper(tok string) string {
	b := []byte(tok)
	if b[len(b)-2] == 'A' {
		b[len(b)-2] = 'B'
	} else {
		b[len(b)-2] = 'A'
	}
	return string(b)
}

func TestLimitConnsPerAddrBehindProxy(t *testing.T) {
	// Behind a proxy every request comes from the proxy; ClientAddr says
	// whose it really is.
	h := start(t, ServerConfig{
		ClientAddr: func(r *http.Request) string {
			return r.URL.Query().Get("as") // a stand-in for a header the proxy sets
		},
		Tuning: ServerTuning{MaxConnsPerAddr: 1},
	})
	h.dial("/room/x?as=alice")
	h.dial("/room/x?as=bob")
	_, err := h.tryDial("/room/x?as=alice")
	require.ErrorIs(t, err, client.ErrTooManyConnections)
}

func TestBinaryMessageRefused(t *testing.T) {
	h := start(t, ServerConfig{})
	// A well-formed join, sent as a binary message: the protocol is text.
	ws := h.raw("/room/bin")
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	require.NoError(t, ws.Write(ctx, websocket.MessageBinary, []byte(`{"v":1,"type":"join"}`)))
	code, reason := rawCloseStatus(t, ws)
	require.Equal(t, wire.CodeMalformed, int(code))
	require.Equal(t, wire.ErrMalformed.Error(), reason)
	// And after joining in text, a binary signal is refused the same way.
	a := h.dial("/room/bin")
	ws, _ = h.rawJoin("/room/bin")
	require.Equal(t, client.PeerJoined, next(t, a).Kind)
	require.NoError(t, ws.Write(ctx, websocket.MessageBinary,
		[]byte(`{"v":1,"type":"signal","peer":"`+a.ID()+`","kind":"offer","payload":{}}`)))
	code, _ = rawCloseStatus(t, ws)
	require.Equal(t, wire.CodeMalformed, int(code))
	require.Equal(t, client.PeerLeft, next(t, a).Kind, "a never got the binary signal")
	require.Equal(t, uint64(0), h.srv.Stats().Relayed)
}

func TestLimitPingsCountAgainstRate(t *testing.T) {
	clock := newFakeClock() // stands still: the bucket never refills
	h := start(t, ServerConfig{Now: clock.Now, Tuning: ServerTuning{MessageRate: 1, MessageBurst: 10, CloseTimeout: 50 * time.Millisecond}})
	ws, _ := h.rawJoin("/room/ping") // the join is 1 of 10
	type closed struct {
		code websocket.StatusCode
		err  error
	}
	closedc := make(chan closed, 1)
	go func() { // Ping needs a reader to see the pong
		_, _, err := ws.Read(context.Background())
		closedc <- closed{websocket.CloseStatus(err), err}
	}()
	answered := 0
	for ; answered < 1000; answered++ {
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		err := ws.Ping(ctx)
		cancel()
		if err != nil {
			break
		}
	}
	var got closed
	select {
	case got = <-closedc:
	case <-time.After(waitTimeout):
		t.Fatalf("never closed: %d pings answered", answered)
	}
	require.Equal(t, wire.CodeRateLimited, int(got.code), "%v", got.err)
	require.Equal(t, 9, answered, "pings answered within the burst, no more")
	require.Equal(t, uint64(1), h.srv.Stats().RateLimited)
	stillServes(t, h, "other")
}
