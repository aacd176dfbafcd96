// Package quic carries rollnet's datagrams over QUIC (quic-go, with RFC
// 9221 unreliable datagrams), for a host on a public address that clients
// dial directly: no signaling server, no ICE, one UDP port.
//
// # Contract
//
// A Transport implements transport.Transport and transport.Expecter. A
// host (Listen) has one peer per admitted connection; a client (Dial) has
// one peer, its host.
//
//   - TLS 1.3, ALPN "rollnet/1". The host presents
//     Config.Certificate, or a self-signed ECDSA P-256 certificate valid
//     for 13 days (SelfSigned) whose SHA-256 (CertHash, FormatHash) the
//     commands print and a client pins (Config.PinSHA256, ParseHash).
//     Without a pin the client verifies the certificate as a browser does.
//   - After the handshake the client opens one stream and sends a hello;
//     the host answers with a welcome that names both ends (the client's
//     id, "q1", "q2", ...; the host's, "quic://" + Config.Address) or a
//     refusal, and closes the stream. Datagrams from a connection that has
//     not said hello are never read: it is closed after
//     Config.Tuning.HelloTimeout. The layout is in hello.go; a change bumps
//     the ALPN name.
//   - Admission before state: a host with Config.TokenSecret admits only clients
//     whose connect token (transport/quic/connecttoken, minted by the
//     game's backend) it accepts. The token rides in the ClientHello as a
//     second ALPN entry ("rollnet-token/1:" and the token's bytes), so
//     the host checks it (one HMAC) when the ClientHello arrives, before
//     its key exchange and signature, and fails the handshake otherwise;
//     the token's client key follows in the hello, inside TLS, and
//     redeems it (single use). A client's id is then "client-" and its
//     client id, the same across reconnections. Without TokenSecret anyone who
//     completes the hello is admitted.
//   - A connection is a peer. A client that changes networks calls Migrate:
//     quic-go probes the new path and switches to it, and the connection
//     and so the peer on both sides stay the same (a session sees nothing
//     but a changed round trip). quic-go follows a NAT rebinding on its own.
//   - Send never blocks: it copies the datagram into the peer's send ring
//     (Config.Tuning.BulkQueueLen slots allocated once) and the peer's send loop
//     hands it to quic-go, whose SendDatagram blocks once it holds 32.
//     A datagram that finds Config.Tuning.SendQueueLen waiting (8 by default)
//     supersedes the oldest waiting one of its kind (the same first byte
//     and, for netplay's messages, the second,
//     a rollnet message's type: the newest state matters, not the first),
//     or else the oldest one a newer one of its own kind follows is
//     superseded, or else it pushes out the oldest; the send loop drops what waited over
//     250 ms, so that after a stall nothing stale is flushed. SendBulk
//     waits behind up to BulkQueueLen and says whether it took the
//     datagram. (internal/sendqueue, shared with transport/webrtc.)
//   - Received datagrams are copied into the fair queue of
//     internal/recvqueue (Config.Tuning.QueueLen slots, one lane per peer, round
//     robin, longest lane drops when full), the queue transport/webrtc
//     uses. Expect gates it before a datagram takes a slot. A datagram
//     over transport.MaxDatagram is dropped and counted.
//   - A peer is gone (transport.ErrPeerGone, a transport.PeerGone event) when its
//     connection closes or is silent for Config.Tuning.IdleTimeout (5 s; each
//     side pings every KeepAlive, 1 s).
//   - Close closes every connection with a CONNECTION_CLOSE, then the
//     sockets, and waits for every goroutine the Transport started.
//
// # WebTransport (browsers)
//
// A host with Config.WebTransport also serves WebTransport on the same UDP
// port: a connection that negotiates HTTP/3 ("h3") is handed to
// webtransport-go, and a session at WebTransportPath is admitted exactly as
// a native connection is (the same hello on its first bidirectional
// stream, the same ids, the same datagram path). A browser cannot put a
// token in its ClientHello, so with Config.TokenSecret its token travels in the
// URL (?token=, unpadded base64url) and is checked before the session is
// made, after the handshake; its key still comes in the hello. The page
// accepts a self-signed certificate by its hash:
//
//	new WebTransport("https://HOST:PORT/rollnet?token=...", {
//	  serverCertificateHashes: [{algorithm: "sha-256", value: hashBytes}],
//	})
//
// which Chromium honours only for an ECDSA certificate valid for at most
// 14 days (SelfSigned makes one). Built for GOOS=js, this package is that
// client (DialWebTransport, webtransport_js.go), over the browser's own
// WebTransport; TestWebTransportInBrowser runs it in headless Chromium
// against a host on loopback, every datagram size up to
// transport.MaxDatagram crossing both ways.
//
// # Limits (what a host holds for strangers)
//
// quic-go's own bounds, set here: DATAGRAM frames up to 16383 bytes are
// accepted by the protocol and dropped above transport.MaxDatagram by
// this package; quic-go queues at most 128 received datagrams per
// connection (dropping past that), 1024 packets not yet processed by the
// server, 32 connections waiting to be accepted, and 32 undecryptable
// packets per connection. Its handshake times out after
// Config.Tuning.HandshakeTimeout (2 s). Every path starts at 1280-byte packets
// (a transport.MaxDatagram payload fits; quic-go's default after a
// migration, 1200, would not) and path MTU discovery is off (no datagram
// needs more; its probes cost a 32-byte input stream about 130 B per
// input), version negotiation packets are never sent
// (a packet naming another version is garbage), and stream windows are a
// few KiB (the hello is the only stream).
//
// This package's bounds, checked before quic-go does TLS work for a new
// connection: an IP address holds at most Config.Tuning.MaxConnsPerAddr
// connections (handshaking, waiting for the hello, or admitted), and its
// next Initial is answered with CONNECTION_REFUSED and counted
// (Stats.ConnsRefusedAddr, one per refused Initial packet, retransmissions
// included). A new connection from an address the host has not
// validated must first prove it with a Retry (one round trip, no state
// kept): spoofed addresses cost a Retry packet each. A client that
// connected before presents the host's NEW_TOKEN and skips it (Dial keeps
// such tokens for the process).
// Past MaxPeers admitted, a new one is closed at once
// (Stats.ConnsRefusedFull). Packets
// quic-go drops before any connection takes them are counted from its
// transport-level qlog events (Stats.PacketsDropped).
//
// # Attacks, and what a host promises against each
//
//   - Squatters: connections that complete the handshake and never say
//     hello, from a few addresses or many. At most Config.Tuning.MaxPending
//     connections (native or WebTransport, which wait for their session's
//     hello in the same pool) wait for their hello at once, and one IP
//     address holds at most an eighth of them (2 of 16). The newest is
//     never refused: when the address holds its share, its own oldest is
//     closed ("busy", Stats.ConnsEvicted), otherwise, when MaxPending wait,
//     the oldest of all is. An honest client says hello within a round
//     trip of its handshake, so squatters must complete MaxPending
//     handshakes within that round trip to push it out; each costs them a
//     handshake, and an address holds at most Config.Tuning.MaxConnsPerAddr
//     connections at once, refused before any TLS work past that.
//     TestPendingSquattersEvicted: squatters on 2 and on 32 addresses
//     making 40 handshakes a second, honest clients admitted within 2 s
//     10 of 10 (0 of 10 when the newest was refused).
//     TestWebTransportPendingCapped: 32 addresses' HTTP/3 connections that
//     never ask for a session, at most MaxPending open (all 64 before).
//   - Amplification: an address the host has not validated is answered
//     with a Retry, so it is sent less than what it sent (RFC 9000 section
//     8.1 allows three times). Without the Retry, quic-go checks the limit
//     before each packet and its last retransmission overshoots: an
//     address that sent only its two-packet first flight (2,560 B) got
//     8,558 B back (3.34x); with it, one Retry packet
//     (TestAmplificationBound). The Retry costs an honest client's first
//     connection one round trip.
//   - Spoofed Initials: answered with a Retry, no state kept.
//   - A copied connect token (Config.TokenSecret; the token rides in clear in
//     the ClientHello): presenting it takes nothing from its owner, since
//     any number of connections may present a token at once and the first
//     to show its key in the hello takes it (transport/quic/connecttoken).
//     A copier is refused after the handshake ("wrong client key"); the
//     owner is admitted however many copies are presented
//     (TestCopiedTokenNotHeld; before, a copier holding the token had the
//     owner refused 19 of 19 dials). A token refused at the handshake
//     (used, expired, for another host or room, forged) fails it with a
//     TLS internal_error alert, the only answer TLS gives there; Dial
//     returns ErrRefused saying the host refused the connect token, with
//     the grant's claims.
//
// # Allocation
//
// Nothing of this package allocates per datagram after a peer is up (Send,
// SendBulk, the loops, Receive: TestAllocsPerDatagram). quic-go does:
// SendDatagram copies the payload into a new frame, and the receive path
// copies every DATAGRAM frame into a new slice. Measured over loopback
// (TestQuicGoAllocsPerDatagram), one 64-byte datagram from client to
// host costs about 12 allocations in quic-go, both ends together.
//
// # Measured (loopback, quic-go v0.64.1, against transport/webrtc)
//
// From ROLLNET_FIGURES=1 go test -run TransportFigures -v ./bench
// (one run, 2 cores shared with a load average of 17): a 32-byte input
// sent at 60 Hz costs 117 B on the wire over QUIC (58 B of UDP payload in
// 1.02 packets up, 15 B of acknowledgements in 0.53 packets down, IPv4 and
// UDP headers included) and 210 B over WebRTC's DTLS and SCTP (114 B up in
// 1.15 packets, 46 B down in 0.65): 0.55x. Dial to the host's first
// datagram: 6 ms over QUIC, 18 ms over WebRTC through a signaling server
// on loopback; to an authoritative client's first host state (the host
// stepping at 60 Hz): 55 ms and 68 ms (medians of 5). Host CPU per client
// per tick, 8 clients in another process each sending a 32-byte input and
// receiving a 200-byte state at 60 Hz: 61 us over QUIC, 114 us over WebRTC
// (0.54x).
package quic
