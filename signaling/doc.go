// Package signaling is rollnet's rendezvous service: a WebSocket server that
// groups peers into rooms and relays WebRTC offers, answers and ICE
// candidates between them, and the Go client a transport uses to reach it.
//
// The client is package signaling/client (client.Dial, client.Client,
// client.Config, client.Event), and so are the protocol's names both sides
// share: its errors (client.ErrRoomFull, ...), which its close codes
// (4000 to 4007) stand for, client.CloseError, client.HTTPError,
// client.ICEServer and client.Signal. This package
// is the server alone and names none of them again: a game imports the
// client, a server program this package (and the client for those names).
// The client builds for GOOS=js GOARCH=wasm and dials through the
// browser's WebSocket (the page makes the handshake: client.Config's
// HTTPClient and HTTPHeader are refused there, and a refusal before the
// upgrade is not a *client.HTTPError), linking nothing of this package's
// server nor of net/http. The server is for native programs. In a browser
// build this package still compiles (the Server refuses every upgrade) but
// links net/http, 1.5 MB of the browser pong; its NATS clustering and
// Prometheus metrics are left out (native-only files), so that even a game
// that links it carries none of NATS, JetStream, Prometheus or protobuf
// (.ci/run checks both with go list -deps).
//
// # Running a server
//
// The command runs one (go run ./signaling/cmd/rollnet-signal -addr
// 127.0.0.1:8080). In a program, Serve (or ServeTLS) runs it on a listener
// with the limits below applied from the first byte:
//
//	srv, _ := signaling.NewServer(signaling.ServerConfig{})
//	ln, _ := net.Listen("tcp", ":8080")
//	go srv.Serve(ln)                         // or srv.ServeTLS(ln, "cert.pem", "key.pem")
//	...
//	srv.Shutdown(ctx)                        // stops accepting, ends every WebSocket
//
// A *Server is also an http.Handler (httptest.NewServer(srv) in tests), but
// then the accept-time, header and idle limits are the caller's http.Server's.
//
// Routes: GET / returns {"service":"rollnet-signal","protocol":2,
// "protocols":[1,2],"status":"ok",...}; GET /healthz returns "ok" (503 once closing); GET
// /readyz returns "ready" (503 once closing, or while NATS is unreachable);
// /room/NAME joins the room NAME (1 to 64 characters of A-Z a-z 0-9 . _ -);
// /room?next=N joins the room being filled by the next N joiners (2 <= N <=
// MaxRoomSize). With a TokenSecret, add token=Token(secret, room, expiry),
// where room is NAME or "next=N"; it is checked before the upgrade (one
// spelling per token: the MAC is decoded strictly). Handle adds an exact
// path beside these (a relay's status page).
//
// # Protocol (version 2)
//
// This section is the whole protocol: a client in any language (a page's
// JavaScript, a TypeScript front end, another engine) implements it
// against these lines, and meets rollnet's transport/webrtc peers.
//
// Every message is one JSON text message (a binary message closes the
// connection with 4000), an envelope {"v":V,"type":...}, where V is the
// protocol version the client speaks: its join says it, and every message
// either way carries it from then on. The server speaks versions 1 and 2,
// each connection in its own, so clients of both meet in one room:
//
//	client → server  {"v":V,"type":"join"}                                   first, and only once
//	server → client  {"v":V,"type":"join","id":ID,"room":R,"peers":[ID...],"protocols":[PV...],"ice":[...],"max":BYTES}
//	server → client  {"v":V,"type":"peer-joined","peer":ID,"protocol":PV}
//	server → client  {"v":V,"type":"peer-left","peer":ID}
//	client → server  {"v":V,"type":"signal","peer":TO,"kind":K,"payload":JSON}
//	server → client  {"v":V,"type":"signal","peer":FROM,"kind":K,"payload":JSON}
//	server → client  {"v":V,"type":"error","code":"unknown-peer","message":M,"peer":TO}
//
// "protocols" and "protocol" are version 2's: the version each peer speaks
// (protocols[i] is that of peers[i]), so a client knows what its signals to
// that peer may hold. A client of version 1 gets neither field: the
// messages it hears are exactly version 1's. Omitted fields are empty
// ("peers" and "protocols" when the room was empty, "ice" without ICE
// servers).
//
// Ids are 16 lowercase hex digits (64 random bits) assigned by the server;
// "peers" in the join reply lists the room's members oldest first, so the
// newcomer knows who was there (and, by rollnet's convention, waits for
// their offers). "max" is the largest message the server takes, in bytes.
// A signal is relayed only to a peer in the sender's room; any other is
// refused with an "error" message and the connection stays open. Every
// message is validated: unknown fields, a version other than the join's,
// a type the sender may not send, or a malformed id closes the connection
// with 4000. A join in a version the server does not speak is closed with
// 4007 (client.ErrProtocolVersion); a server older than version 2 closes
// a version 2 join with 4000, and client.Dial reports either as
// client.ErrProtocolVersion. GET / says {"protocol":2,"protocols":[1,2],...}.
//
// # Signal payloads
//
// The payload is any JSON value but null, opaque to the server: relayed
// byte for byte, never re-escaped, whatever the versions of sender and
// addressee (the sender writes it for the addressee's version). Kind K is
// one of three, and rollnet's transport/webrtc sends and takes:
//
//	"offer"      an RTCSessionDescriptionInit: {"type":"offer","sdp":"v=0..."}
//	             (in a browser, pc.localDescription.toJSON() after setLocalDescription)
//	"answer"     {"type":"answer","sdp":"v=0..."}, the same way
//	"candidate"  one RTCIceCandidateInit, as onicecandidate gives it
//	             (event.candidate.toJSON()): {"candidate":"candidate:...",
//	             "sdpMid":"0","sdpMLineIndex":0,"usernameFragment":"..."};
//	             in version 2 also a non-empty array of them (a transport/webrtc
//	             peer takes at most 32 at once: Config.MaxPendingCandidates),
//	             sent only to a peer of version 2
//
// A peer of version 1 is only ever sent one candidate a signal, and may
// hand each payload to addIceCandidate as it comes. (Version 1 was bumped
// to 2 because rollnet's transport began sending arrays under kind
// "candidate": its releases from then until version 2 sent arrays to
// every peer, which a page of version 1 cannot take; every release that
// sent them takes both shapes, and every later one is sent arrays only by
// a peer that knows it speaks version 2.) The end of gathering is not
// signalled (a null payload is refused): ICE does not need it. A
// transport/webrtc peer sends its offer or answer before any candidate,
// and queues candidates that arrive before the remote description.
//
// # Meeting a transport/webrtc peer
//
// The member already in the room offers to the newcomer when it hears
// peer-joined; the newcomer answers each offer. The data channel is
// negotiated out of band, the same on both sides:
// createDataChannel("rollnet", {negotiated: true, id: 0, ordered: false,
// maxRetransmits: 0}), binary messages only (one datagram each, at most
// 1200 bytes). TestPlainJSClientInChromium in
// transport/webrtc is such a page, in plain JavaScript, in both versions
// and both offer directions.
//
// # Limits
//
// Every limit is a ServerConfig field whose zero value is a documented
// default. Crossing one gives a clear error, and only the connection that
// crossed it is closed (each row is tested with a real client or raw
// connections against a server on loopback):
//
//	TCP conns per address  32+8, at accept    HTTP 429 written, closed before reading (Serve only;
//	                                          TrustedProxies exempt; the 8 spare are for health checks)
//	TCP conns in total     10000, at accept   the same
//	request headers        8 KiB, 10 s        HTTP 431; cut after 10 s (slowloris) (Serve only)
//	idle keep-alive        30 s               closed (Serve only)
//	conns per address      32                 HTTP 429 before the upgrade (the client address:
//	                                          behind a TrustedProxies proxy, the one it vouches for)
//	conns in total         10000              HTTP 429 before the upgrade
//	joins per address      2/s, burst 20      HTTP 429 before the upgrade
//	                                          (loopback addresses exempt: tests, the demo)
//	joins per named room   2/s, burst 16      HTTP 429 before the upgrade;
//	                                          shared fairly between addresses (below)
//	places per address     half the room (4)  HTTP 429 ErrTooManyConnections before the upgrade:
//	  per named room                          one address never fills a room alone (members
//	                                          and sockets not yet joined count; loopback exempt)
//	room size              8 peers            join refused: close 4001 "signaling: room full"
//	message size           16 KiB             close 1009; Client.Send refuses it first
//	message rate           50/s, burst 100    close 4002 "signaling: rate limit exceeded"; every
//	                                          frame counts (messages, pings, pongs), except replies
//	join timeout           10 s               close 4003 "signaling: join timeout"
//	ping                   every 15 s, 10 s to answer: close 4005 "signaling: ping timeout"
//	send queue             64 messages        overflow drops the slow reader: close 4004
//	relay outside room                        refused: "error" message, connection kept
//	binary message                            close 4000 (the protocol is text)
//	protocol version       1 and 2            any other join: close 4007 ErrProtocolVersion
//	join token             (optional)         HTTP 401 or 403 before the upgrade; every room
//	                                          (TokenSecret) or those under TokenRooms' prefixes
//
// Nobody pays for traffic another peer caused. Each join into a room lets
// every member send the newcomer ReplyAllowance (16) signals free of its
// own rate limit (the offer and candidates the join makes it send), and
// each signal a peer pays for lets its addressee answer with as many
// (the answer and candidates); free signals grant nothing, so peers
// cannot trade them without bound, and a peer's allowance to someone
// who left lasts 10 s (signals that crossed peer-left are refused, not
// charged). A peer that cycles join/leave therefore spends its own join
// rate and the room's, never the members' message rate: churn in a room
// can make later joins to that room wait (HTTP 429, retry), but closes
// nobody in it. next=N rooms have no per-room join limit, since they do
// not outlive their filling.
//
// A room's join budget is shared fairly: an address that has joined the
// room more than a quarter of RoomJoinBurst times lately (4 of 16; each
// join counted down at a quarter of RoomJoinRate, 0.5 a second) may only
// take the first half of the budget; the other half (8 joins, refilling
// at 2 a second) stays for addresses within that share. Two addresses
// joining and leaving at their own rate (2 a second each) used to drain
// the room's budget and let an honest player in 3 times of 20; they now
// spend the first half between them and the newcomer gets in at every try
// (TestRoomJoinBudgetFair). Draining the whole budget takes more than four
// addresses, each within its share. With NATS these counts, like every
// per-address limit, are per instance.
//
// Nobody waits for a slow peer: relaying never blocks the sender; a full
// queue drops the peer that does not read. Error replies are best effort
// (dropped when the queue is full) so that refusals cannot turn their
// sender into a slow consumer. A close handshake is cut after CloseTimeout.
//
// # Behind a reverse proxy
//
// TLS is native (ServeTLS; the command's -tls-cert and -tls-key), so no
// proxy is needed for wss://. Behind one, list it in TrustedProxies (the
// command's -trusted-proxy): a request whose TCP peer is a trusted proxy
// counts against the address in its Forwarded header (else
// X-Forwarded-For), read right to left past trusted hops, so what a client
// wrote itself is never believed; the proxy's own TCP connections are not
// capped per address. The headers of any other peer are ignored, counted
// (Stats.ForwardedIgnored, the forwarded_ignored_total metric) and logged
// (at Warn the first time and every 1024th): they most likely mean a
// proxy that was not named.
//
// A proxy not named makes every client its address. On the same machine
// that address is loopback, which the per-address caps exempt (tests and
// local tools connect from it), so every cap is off: one remote address
// fills a room, drains a room's join budget, or takes every connection.
// rollnet-signal warns at start when it listens on loopback without
// -trusted-proxy (where a same-host proxy is the only way in), and
// TestForwardedFromUntrustedPeerCounted checks the counting.
// internal/netlab's TestSignalingCapsFromAddresses measures it from
// network namespaces: through a same-host proxy not named, one remote
// address took 8 of a room's 8 places; named, 4, as directly. From real
// addresses the caps hold per address: one address holds at most
// MaxMembersPerAddr places of a named room, so two addresses can still
// fill a room of 2*MaxMembersPerAddr (8 with the defaults, 4 places
// each). A game that needs more, rooms only its own players can enter,
// requires a join token for them: TokenSecret, and TokenRooms to require
// it only for the rooms under some prefixes (rollnet-signal -token-room
// ranked-), the others staying open. Such a room refuses a join without
// a valid token for it (HTTP 401) or with another room's, an expired or
// a forged one (403), before the upgrade (TestTokenRooms; the parser is
// fuzzed by FuzzCheckToken).
//
// # Several instances (NATS)
//
// With ServerConfig.NATS (the command's -nats nats://HOST:4222), servers
// behind a load balancer share their rooms through NATS, with JetStream
// enabled: rooms, next=N pairing and relaying work across instances as if
// they were one, and each signal still goes only to a peer in its room.
// Without it nothing changes: a single instance needs nothing else, and
// its paths do not touch the cluster code.
//
// Room membership is kept in a JetStream key-value bucket ("<Name>-rooms"),
// one key per room holding its members oldest first with their instances,
// and next=N's room being filled under "n.N". Every change is a
// compare-and-set on the key's revision, retried on conflict, so the room
// size, who joined first (the host, by rollnet's convention) and the
// order of "peers" are the bucket's, decided once: two instances racing
// for a room's last place cannot both get it (TestClusterRoomFullRace).
// This was chosen over a room owner elected through NATS because an owner
// is state that dies with its instance and must be handed over; the
// bucket outlives every instance, and NATS restarts with it (file
// storage). Every instance watches the bucket and keeps a mirror; what
// its clients hear (peer-joined, peer-left) is the difference between
// what each was told and the mirror, so a late or replayed update changes
// nothing. A signal to a peer on another instance is published on that
// instance's subject ("<Name>.i.ID") and checked again there (the
// addressee still in that room). Per-connection limits (rates, queues,
// joins per address) stay local to each instance.
//
// Instances say they are alive every Cluster.Heartbeat (500 ms). One not
// heard for Cluster.DeadAfter (3 s) is dead: the others take its clients
// out of their rooms, so their peers hear peer-left within DeadAfter +
// Heartbeat (plus a key-value write, milliseconds; TestClusterInstanceDeath
// checks it), and its places are free again. An instance taken for dead
// that comes back closes its clients with 4006 (client.ErrClusterUnavailable)
// so they join again. An instance shutting down (Close, SIGTERM) closes
// its clients with 1001 (going away: join again, through another
// instance) and takes them out of their rooms at once.
//
// When NATS is unreachable, an instance refuses joins at once (HTTP 503
// client.ErrClusterUnavailable, /readyz 503) instead of hanging; a join whose
// key-value write does not complete within Cluster.OpTimeout is closed
// with 4006. Clients already paired keep their connection. When NATS is
// back the instance watches the bucket again and goes on; nobody is taken
// for dead for the silence of the outage.
//
// # Operators
//
// GET /readyz answers 200 "ready", or 503 while closing or while NATS is
// unreachable; MetricsHandler serves Prometheus metrics (the command's
// -metrics ADDR serves them at /metrics, with /healthz and /readyz):
// clients, rooms, signals and bytes relayed, refusals by reason, closes by
// limit, pairing latency, and with NATS the instances heard and the rooms
// in the bucket.
//
// # Logs
//
// With ServerConfig.Logger: joins (peer, room, size and the peers the
// newcomer meets), filled next=N rooms, and leaves (peer, room, who is
// left, and why: "closed by the client" for a normal close, which is not
// an error) at info; the server's own closes (rate limit, slow consumer,
// ...) and refused requests at info; refusals for a limit (HTTP 429, a
// flood would flood the log: Stats counts them) and shutdown closes at
// debug.
//
// # ICE servers
//
// ServerConfig.ICEServers (STUN, and TURN with credentials) go to every
// client in the join reply. With TURNSecret, a TURN server configured
// without credentials gets short-lived ones minted per client
// (the TURN REST API scheme coturn checks: username "EXPIRY:ID",
// credential base64(HMAC-SHA1(TURNSecret, username))).
//
// # Client
//
// client.Dial joins, in version 2, and returns once the server has assigned
// an id; PeerProtocol says which version each peer in the room speaks.
// Events delivers client.PeerJoined, PeerLeft, SignalReceived and
// ServerError in the server's order and is closed when the connection
// ends; Err then says why, as a *client.CloseError or *client.HTTPError that
// errors.Is matches against the client's sentinels (client.ErrRoomFull,
// ErrUnauthorized, ...; the others by CloseError.Code). Keep the client open during a
// match to hear peer-left.
//
// # Time and goroutines
//
// Token expiry and rate limits (messages, joins, allowances) read
// ServerConfig.Now. Timeouts (join, ping, write, close, header, idle) are
// real timers. The server runs three goroutines per
// connection (reader, writer, pinger); Close returns when all have ended.
// A client runs one, which Close ends.
package signaling
