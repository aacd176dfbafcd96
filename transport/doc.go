// Package transport states the contract between rollnet's sessions and the
// networks that carry their packets.
//
// A Transport moves datagrams between peers. It promises little, on purpose,
// so that anything from an in-memory test network to a WebRTC data channel
// can implement it:
//
//   - Datagrams may be lost, duplicated, delayed or reordered. A session
//     never relies on delivery; it relies only on a datagram arriving whole
//     or not at all.
//   - Send never blocks the game loop. A datagram that cannot go now is
//     dropped (and counted by the transport), not queued without bound.
//   - Receive never blocks. It copies the next waiting datagram into the
//     caller's buffer and returns ErrNoPacket when none waits.
//   - Neither Send nor Receive retains the caller's buffer after it returns.
//   - No datagram is larger than MaxDatagram bytes. Send refuses a larger
//     one with ErrTooLarge; Receive needs a buffer of at least MaxDatagram
//     bytes and drops (with ErrShortBuffer) a datagram that does not fit.
//   - Peer identities are comparable values that the transport hands out
//     (an endpoint name on the local network, a signaling id over WebRTC).
//     A datagram from a peer the session does not know is the session's to
//     ignore (or, through Expecter, the transport's to drop). Send to a peer never known, the zero Peer included, is
//     ErrUnknownPeer; to a peer whose connection has gone, ErrPeerGone (or,
//     until the transport learns of it, nil).
//   - Receive is fair between peers: each sender's datagrams wait in their
//     own share of the receive queue and Receive takes them round robin, so
//     a peer sending far more than the others fills only its own share and
//     cannot delay or crowd out another peer's datagrams.
//   - A Transport that implements Expecter drops datagrams from peers the
//     session has not named before they take a receive-queue slot, and
//     receives anyone's again after ExpectAnyone (while a player may come
//     back from a new address), until the next Expect.
//   - After Close, Send and Receive return ErrClosed, before any other
//     check. Close is idempotent (every call returns nil) and releases every
//     goroutine the transport started; datagrams still waiting are dropped.
//
// Beside Transport, a facade needs a few capabilities that not every
// transport has; each is an interface here, which the transports implement
// and a facade asserts for, so that it names none of them:
//
//   - PeerSet: the peers connected now, a wait for enough of them, and
//     their PeerEvents (connected, gone, interrupted, resumed).
//   - BulkSender: a deeper send path for bulk transfers, which reports
//     whether it took the datagram.
//   - RoomDialer and Room: joining a rendezvous room and meeting its other
//     members; HostDialer: dialing a host directly.
//   - PathReporter: the network round trip and route to a peer.
//
// Every implementation runs the conformance checks in
// transport/transporttest (transporttest.Run), on a quiet link where every
// datagram must arrive exactly once and on a lossy one where what arrives
// must still be whole; a transport that implements Expecter also runs the
// Expect check, and a pair of PeerSets the PeerSet check.
package transport
