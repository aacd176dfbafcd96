// Package signaling is rollnet's rendezvous service: a WebSocket server that
// groups peers into rooms and relays WebRTC offers, answers and ICE
// candidates between them, and the Go client a transport uses to reach it.
//
// # Running a server
//
// The command runs one (go run ./signaling/cmd/rollnet-signal -addr
// 127.0.0.1:8080). In a program or a test, a *Server is an http.Handler:
//
//	srv, _ := signaling.NewServer(signaling.ServerConfig{})
//	hs := httptest.NewServer(srv)            // or http.Serve(listener, srv)
//	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/room/lobby"
//	...
//	srv.Close()                              // ends every WebSocket
//	hs.Close()
//
// Routes: GET / returns {"service":"rollnet-signal","protocol":1,
// "status":"ok",...}; GET /healthz returns "ok" (503 once closing);
// /room/NAME joins the room NAME (1 to 64 characters of A-Z a-z 0-9 . _ -);
// /room?next=N joins the room being filled by the next N joiners (2 <= N <=
// MaxRoomSize). With a TokenSecret, add token=Token(secret, room, expiry),
// where room is NAME or "next=N"; it is checked before the upgrade.
//
// # Protocol (version 1)
//
// Every message is one JSON text message, an envelope {"v":1,"type":...}:
//
//	client → server  {"v":1,"type":"join"}                                   first, and only once
//	server → client  {"v":1,"type":"join","id":ID,"room":R,"peers":[ID...],"ice":[...],"max":BYTES}
//	server → client  {"v":1,"type":"peer-joined","peer":ID}
//	server → client  {"v":1,"type":"peer-left","peer":ID}
//	client → server  {"v":1,"type":"signal","peer":TO,"kind":K,"payload":JSON}
//	server → client  {"v":1,"type":"signal","peer":FROM,"kind":K,"payload":JSON}
//	server → client  {"v":1,"type":"error","code":"unknown-peer","message":M,"peer":TO}
//
// Ids are 16 lowercase hex digits (64 random bits) assigned by the server;
// "peers" in the join reply lists the room's members oldest first, so the
// newcomer knows who was there (and, by rollnet's convention, waits for
// their offers). K is "offer", "answer" or "candidate"; the payload is any
// JSON value but null, opaque to the server. A signal is relayed only to a
// peer in the sender's room; any other is refused with an "error" message
// and the connection stays open. Every message is validated: unknown
// fields, a wrong version, a type the sender may not send, or a malformed
// id closes the connection with 4000.
//
// # Limits
//
// Every limit is a ServerConfig field whose zero value is a documented
// default. Crossing one gives a clear error, and only the connection that
// crossed it is affected:
//
//	room size          8 peers          join refused: close 4001 "signaling: room full"
//	message size       16 KiB           close 1009; Client.Send refuses it first
//	message rate       50/s, burst 100  close 4002 "signaling: rate limit exceeded"
//	conns per address  32               HTTP 429 before the upgrade
//	conns in total     10000            HTTP 429 before the upgrade
//	join timeout       10 s             close 4003 "signaling: join timeout"
//	ping               every 15 s, 10 s to answer: close 4005 "signaling: ping timeout"
//	send queue         64 messages      overflow drops the slow reader: close 4004
//	relay outside room                  refused: "error" message, connection kept
//	join token         (optional)       HTTP 401 or 403 before the upgrade
//
// Nobody waits for a slow peer: relaying never blocks the sender; a full
// queue drops the peer that does not read. Error replies are best effort
// (dropped when the queue is full) so that refusals cannot turn their
// sender into a slow consumer. A close handshake is cut after CloseTimeout.
//
// # ICE servers
//
// ServerConfig.ICEServers (STUN, and TURN with credentials) go to every
// client in the join reply. With TURNSecret, a TURN server configured
// without credentials gets short-lived ones minted per client
// (TURNCredentials: the TURN REST API scheme coturn checks).
//
// # Client
//
// Dial joins and returns once the server has assigned an id. Events
// delivers PeerJoined, PeerLeft, SignalReceived and ServerError in the
// server's order and is closed when the connection ends; Err then says
// why, as a *CloseError or *HTTPError that errors.Is matches against this
// package's sentinels (ErrRoomFull, ErrRateLimited, ErrUnauthorized, ...).
// Keep the client open during a match to hear peer-left.
//
// # Time and goroutines
//
// Token expiry and rate limits read ServerConfig.Now. Timeouts (join, ping,
// write, close) are real timers. The server runs three goroutines per
// connection (reader, writer, pinger); Close returns when all have ended.
// A client runs one, which Close ends.
package signaling
