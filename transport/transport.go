package transport

import "github.com/rollnet/rollnet"

// MaxDatagram is the largest datagram any transport carries, in bytes. It
// keeps a packet inside one SCTP chunk over WebRTC and inside one UDP
// datagram on any path with a 1280-byte MTU.
const MaxDatagram = 1200

// Peer identifies a remote endpoint of a transport. The zero value is no
// peer. It is rollnet.Peer, the name the sessions' events and stats use.
type Peer = rollnet.Peer

// Transport carries datagrams between peers. See the package documentation
// for the contract every implementation keeps.
type Transport interface {
	// Local is this endpoint's own identity, as its peers see it.
	Local() Peer

	// Send queues one datagram for to and returns at once. A nil error does
	// not mean delivery. It fails with ErrTooLarge, ErrUnknownPeer,
	// ErrPeerGone or ErrClosed.
	Send(to Peer, b []byte) error

	// Receive copies the next waiting datagram into buf and returns its
	// length and sender. With nothing waiting it returns ErrNoPacket at
	// once; after Close, ErrClosed.
	Receive(buf []byte) (n int, from Peer, err error)

	// Close releases the transport. It is safe to call more than once.
	Close() error
}
