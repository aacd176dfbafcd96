// Package udp carries rollnet's datagrams over plain UDP for a dedicated
// host on a public address: a connect token to get in, one AEAD seal a
// datagram, no TLS, no streams, no congestion control. It is the shape of
// netcode.io (a token from the game's backend, a challenge from the host,
// then sealed packets with sequence numbers), with rollnet's connect
// tokens (transport/quic/connecttoken) for admission. Its purpose is
// cost: the host's CPU a client a tick near that of moving the same
// datagrams through bare sockets (bench: BenchmarkHostPath).
//
// # Contract
//
// A Transport implements transport.Transport, transport.PeerSet,
// transport.Expecter and transport.BulkSender; Dialer is a
// transport.HostDialer. A host (Listen) has one peer a connected client,
// named "client-" and the token's client id; a client (Dial) has one, its
// host, "udp://" and the grant's Claims.Address.
//
//   - Handshake. The client sends a request: its connect token, a random
//     salt, padded to 256 bytes. The host checks the token
//     (one HMAC, its address, room and expiry) and answers with a
//     challenge: a cookie sealed under a key only the host holds, bound
//     to the request's address, salt and token, with a host salt and an
//     expiry (Tuning.CookieLifetime), tagged under the connection's
//     host-to-client key so that only a host that knows the backend's
//     secret can make it. It keeps nothing. The client answers with a
//     response (the request's fields and the cookie) tagged under the
//     client-to-host key, which proves it holds the grant's key; the host
//     opens the cookie, checks the tag, redeems the token (single use)
//     and admits the client as pending, with a keep-alive as its welcome.
//     The client's first sealed packet makes it connected
//     (transport.PeerConnected on the host); the welcome does the same on
//     the client, which confirms at once with a keep-alive.
//   - Keys. Each direction has its own AES-256-GCM key, HMAC-SHA256 of
//     the grant's client key (which the host derives from the token and
//     its secret, as the backend did) over a label with the
//     version, the client's salt and the host's: every connection attempt
//     has fresh keys. Sequence number 0 is the handshake's; sealed packets
//     count from 1.
//   - Sealed packets: kind (1 byte), sequence number (8 bytes LE), the
//     payload sealed with the sequence number as the nonce and the header
//     as additional data, a 16-byte tag: 25 bytes a datagram.
//     Kinds: payload, keep-alive, disconnect, denied, ping, pong.
//   - Round trip (version 2). Each side pings a connected peer each
//     second (a stamp of its clock, Config.Now, and 4 zero bytes, so
//     that the answer is no larger); the peer
//     answers at once with a pong: the stamp, and how long the ping
//     waited between the kernel's receive time and its answer
//     (SO_TIMESTAMPNS on Linux; elsewhere the read loop reads at once).
//     The round trip is the time since the stamp, less that wait and the
//     pong's own wait here, so that neither end's frame loop is in it (a
//     socket Receive reads waits for the next call); it is smoothed (a
//     sample weighs 1/8) and reported by Path. A ping counts as a
//     keep-alive.
//   - Send seals the datagram at once into the send queue
//     (Config.SendQueueLen packets, allocated once) and returns; the
//     write loop hands the queue to the socket a batch at a time
//     (sendmmsg on Linux). The kernel takes UDP as fast as it comes, so
//     the queue fills only when the process is not scheduled; then, as
//     transport/quic's and transport/webrtc's (internal/sendqueue), a
//     datagram supersedes the oldest waiting one to the same peer of its
//     kind (its first byte, a rollnet message's type: the newest state
//     matters, not the first; Stats.SendsSuperseded), or else pushes out
//     the oldest waiting one, and the write loop drops those that waited
//     250 ms: both stale (Stats.SendsStale). SendBulk takes a datagram
//     only while the queue is less than half full, and never drops one
//     it took; control packets (keep-alives, disconnects) are never
//     dropped either.
//   - The socket is read in batches (recvmmsg on Linux, one datagram a
//     call elsewhere); each packet is opened in place and its payload
//     copied into the fair receive queue of internal/recvqueue (one lane
//     a peer, round robin; Expect gates it). On Linux, Receive reads the
//     socket itself when its queue is empty (and at least every
//     millisecond), and the read loop leaves the socket to it while it is
//     called (until it has not been for two Tuning.Housekeep periods):
//     the socket is kept out of Go's network poller, so that a datagram
//     that arrives wakes no thread while the game polls. Before the first
//     Receive, and when the game stops calling it, the read loop reads.
//   - Neither loop allocates per datagram (TestZeroAllocsPerDatagram
//     counts the process's allocations over a datagram each way).
//   - A peer is gone (transport.PeerGone, Send returns ErrPeerGone) when
//     it sends a disconnect (transport.ErrPeerClosed; Close sends three), is silent
//     for Config.Timeout (ErrTimeout; each side sends a keep-alive after
//     Config.KeepAlive without sending), or, on a host, when the same
//     client connects again (transport.ErrReplaced). Timeouts run on Config.Now.
//   - Close sends the disconnects, flushes them, closes the socket and
//     waits for the three goroutines the Transport started.
//
// # Attacks, and what a host promises against each
//
//   - Spoofed source addresses and amplification: a request gets a
//     challenge of 49 bytes for its 256, an old version's request a
//     2-byte refusal, a response the host cannot open nothing; a repeated
//     response from an admitted address a 25-byte keep-alive. No answer
//     is larger than what it answers, and an address that has not
//     returned a cookie gets no state: no slot, no presentation of its
//     token kept (TestAmplificationBound: 1,020 B back for 23,920 B, 0.04x,
//     nothing kept).
//   - A copied connect token (it travels in clear, signed, not secret):
//     the copier gets challenges but cannot tag a response without the
//     grant's key, which never crosses the wire; the token is redeemed
//     only by a proven response, so a copy neither admits, burns nor
//     holds it (TestCopiedTokenNotHeld). A used token gets no challenge.
//   - A copied handshake (an on-path observer replaying the client's
//     response): from another address the cookie does not open; from the
//     same address it is the same client's, answered with a keep-alive.
//   - Replayed sealed packets: dropped when their sequence number was
//     opened before or is more than 256 behind the newest
//     (Stats.Replayed); forged or altered ones fail their tag
//     (Stats.Forged); sealed packets from addresses with no connection
//     are counted (Stats.UnknownAddr); packets of no known kind or size
//     are counted (Stats.Malformed). None panics (FuzzHandle,
//     FuzzClientHandle and a fuzz target per decoder).
//   - Squatters (clients with good tokens that complete the handshake and
//     never speak): an IP address holds at most Config.MaxPerAddr
//     connections, pending or connected, and at most Config.MaxPending
//     wait; past either, the oldest pending one (the address's own first)
//     is evicted, with a sealed denied packet, so that the newest proven
//     client always gets in while anything is pending. A pending client
//     is dropped after Config.PendingTimeout. Only connected clients deny
//     a newcomer (ErrDenied, with the reason), at Config.MaxPerAddr for
//     its address or Config.MaxPeers in all
//     (TestPendingSquattersEvicted: honest clients 5 of 5 admitted among
//     squatters on three addresses; TestDenied).
//   - Floods of requests cost one HMAC each for a forged token, a few for
//     a good one: the host keeps nothing for them; its receive queue is
//     the same bounded, fair one the other transports use.
//
// What it does not do: no congestion control, no fragmentation (a
// datagram is at most transport.MaxDatagram, 1225 bytes on the wire,
// inside IPv6's minimum MTU), no path migration (a client whose address
// changes dials again with a new token and replaces its old connection),
// and no browser client (use transport/quic's WebTransport or
// transport/webrtc).
package udp
