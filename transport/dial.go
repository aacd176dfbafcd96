package transport

import (
	"context"
	"time"
)

// RoomDialer joins rooms of a rendezvous service (webrtc's signaling
// server, an in-memory one in tests): a facade meets the other players
// of a named room through it without naming the transport.
type RoomDialer interface {
	// DialRoom joins room ("" asks the service to pair this endpoint with
	// the next one to ask) and returns the transport that connects to its
	// other members. It connects only to the peers for which accept
	// returns true (nil accepts all); accept may be called from the
	// transport's goroutines. The Room owns what it dialed: its Close
	// leaves the room.
	DialRoom(ctx context.Context, room string, accept func(Peer) bool) (Room, error)
}

// Room is a Transport to the members of a rendezvous room.
type Room interface {
	Transport
	PeerSet

	// Name is the room's name: the one dialed, or the one the service
	// chose for "".
	Name() string

	// AtJoin appends the members already in the room when this endpoint
	// joined it, oldest first, to dst and returns the extended slice:
	// connected or not. None means this endpoint was the room's first.
	AtJoin(dst []Peer) []Peer
}

// Arrivals is implemented by a Room that knows the order in which the
// members who joined after this endpoint arrived (webrtc: the order the
// signaling server announced them, which is the same on every member).
// With AtJoin it gives the room's order of arrival, which no member can
// forge: netplay seats a P2P room's first players by it, so that a member
// who came once the seats were taken cannot claim one.
type Arrivals interface {
	// Arrived appends the members that joined the room after this
	// endpoint and are still in it, oldest first, to dst and returns the
	// extended slice: connected or not. Each implementation documents how
	// many it keeps.
	Arrived(dst []Peer) []Peer
}

// Disconnecter is implemented by a Transport that can close its
// connection to one peer (webrtc): a facade ends a stranger's connection
// without leaving the room.
type Disconnecter interface {
	// Disconnect closes the connection to p; Send to p then fails with
	// ErrPeerGone, and the transport does not connect to p again.
	Disconnect(p Peer) error
}

// HostDialer dials a host: a server its clients reach directly (quic, by
// address), without a rendezvous service.
type HostDialer interface {
	// DialHost connects to the host and returns the transport to it and
	// the host's identity on that transport. The transport implements
	// PeerSet.
	DialHost(ctx context.Context) (t Transport, host Peer, err error)
}

// PathReporter is implemented by a Transport that measures the network
// path to its peers (webrtc, from ICE's statistics; quic, its route and
// QUIC's round trip; udp, its route and its pings' round trip; impair,
// the wrapped one's). A call may allocate
// and wait on the network stack: call it now and then, not every frame.
type PathReporter interface {
	// Path returns what is known of the path to p. It fails with
	// ErrUnknownPeer, ErrPeerGone or ErrClosed.
	Path(p Peer) (PathInfo, error)
}

// PathInfo is what a transport knows of the network path to one peer.
type PathInfo struct {
	// RTT is the network's round trip to the peer, without either end's
	// frame loop (0 until measured).
	RTT time.Duration
	// Route describes the path in a few words for a report line, as
	// "relay over TCP (relay to srflx)"; "" until known.
	Route string
	// Partial is set when Route lacks a detail the transport learns later
	// (webrtc: the first hop's protocol, from statistics that can lag): a
	// report keeps a complete route it had over a partial one.
	Partial bool
}
