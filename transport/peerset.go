package transport

import "context"

// PeerSet is implemented by a Transport that knows which peers it is
// connected to (webrtc, quic, multi, local): a facade waits for them,
// greets them, and learns when one comes or goes without naming the
// transport.
//
// The methods are safe for concurrent use; none allocates unless dst is
// too small (WaitPeers aside, which is called before a match, not per
// frame).
type PeerSet interface {
	// Peers appends the peers Send reaches now to dst, sorted, and returns
	// the extended slice.
	Peers(dst []Peer) []Peer

	// WaitPeers blocks until at least n peers are connected and returns
	// them, sorted. It fails with ctx's error, or ErrClosed.
	WaitPeers(ctx context.Context, n int) ([]Peer, error)

	// Events appends the peer events since the last call to dst and
	// returns the extended slice: each call drains what it returns. The
	// transport keeps a bounded number (each documents its bound and
	// whether the oldest or the newest go first past it).
	Events(dst []PeerEvent) []PeerEvent
}

// PeerEventKind is the kind of a PeerEvent.
type PeerEventKind uint8

// The peer events. Every PeerSet reports PeerConnected and PeerGone; a
// transport that can tell a silent peer from a gone one (webrtc) reports
// PeerInterrupted and PeerResumed too.
const (
	// PeerConnected: the peer's connection opened (a data channel, an
	// admitted or welcomed QUIC connection); Send reaches it.
	PeerConnected PeerEventKind = iota + 1
	// PeerGone: the peer's connection failed, closed or timed out; Send
	// returns ErrPeerGone from now on. PeerEvent.Err says why.
	PeerGone
	// PeerInterrupted: nothing came from the peer for a while; it may come
	// back (PeerResumed) or be gone later.
	PeerInterrupted
	// PeerResumed: an interrupted peer is heard again.
	PeerResumed
)

func (k PeerEventKind) String() string {
	switch k {
	case PeerConnected:
		return "connected"
	case PeerGone:
		return "gone"
	case PeerInterrupted:
		return "interrupted"
	case PeerResumed:
		return "resumed"
	}
	return "unknown"
}

// PeerEvent reports a change in a PeerSet: a peer's arrival, departure,
// interruption or return.
type PeerEvent struct {
	Kind PeerEventKind
	Peer Peer
	// Err is the reason for PeerGone, one of the transport's own errors
	// (each transport lists them); nil for the other kinds.
	Err error
}
