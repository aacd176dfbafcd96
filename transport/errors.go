package transport

import "errors"

var (
	// ErrNoPacket is returned by Receive when no datagram is waiting. It is
	// the common case in a game loop, not a failure.
	ErrNoPacket = errors.New("transport: no packet waiting")

	// ErrClosed is returned by every call on a closed transport.
	ErrClosed = errors.New("transport: closed")

	// ErrTooLarge is returned by Send for a datagram over MaxDatagram bytes.
	ErrTooLarge = errors.New("transport: datagram too large")

	// ErrShortBuffer is returned by Receive when the waiting datagram does
	// not fit the caller's buffer; that datagram is dropped.
	ErrShortBuffer = errors.New("transport: receive buffer too short")

	// ErrUnknownPeer is returned by Send for a peer the transport never knew.
	ErrUnknownPeer = errors.New("transport: unknown peer")

	// ErrPeerGone is returned by Send for a peer whose connection failed or
	// closed. The session treats it as that peer's disconnection.
	ErrPeerGone = errors.New("transport: peer gone")
	// ErrPeerClosed is a PeerGone event's Err when the peer's connection
	// closed: the peer closed its transport, or (by the transport's own
	// rule) it was silent too long.
	ErrPeerClosed = errors.New("transport: peer closed the connection")
	// ErrReplaced is a PeerGone event's Err on a host when the same client
	// was admitted again on a new connection: the old one is gone.
	ErrReplaced = errors.New("transport: peer replaced by a newer connection")
)
