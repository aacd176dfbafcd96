package recvqueue

import (
	"context"
	"slices"
	"sync"

	"github.com/rollnet/rollnet/transport"
)

// PeerSet is the transport.PeerSet of transport/webrtc and transport/quic:
// the connected peers (Peers, WaitPeers) and the peer events since the
// last call (Events). The transport keeps its peers of type P in the map
// it hands to NewPeerSet, under its own lock, and calls EmitLocked and
// NotifyLocked with that lock held for writing; the set reads the map and
// its own fields under the same lock.
type PeerSet[P any] struct {
	mu     *sync.RWMutex
	closed *bool
	peers  map[transport.Peer]P
	open   func(P) bool

	// Guarded by mu.
	events     []transport.PeerEvent
	max        int
	dropOldest bool
	dropped    uint64
	changed    chan struct{} // closed and replaced on every change
}

// NewPeerSet returns the set of the peers in peers for which open is
// true, guarded by mu, for a transport that is closed once *closed is set
// (under mu). It keeps at most maxEvents events: past it, the oldest is
// dropped first when dropOldest is set, else the new one (counted in
// Dropped).
func NewPeerSet[P any](mu *sync.RWMutex, closed *bool, peers map[transport.Peer]P, open func(P) bool, maxEvents int, dropOldest bool) *PeerSet[P] {
	return &PeerSet[P]{
		mu: mu, closed: closed, peers: peers, open: open,
		max: maxEvents, dropOldest: dropOldest,
		changed: make(chan struct{}),
	}
}

// Peers appends the open peers to dst, sorted, and returns the extended
// slice.
func (s *PeerSet[P]) Peers(dst []transport.Peer) []transport.Peer {
	s.mu.RLock()
	defer s.mu.RUnlock()
	start := len(dst)
	for id, p := range s.peers {
		if s.open(p) {
			dst = append(dst, id)
		}
	}
	slices.Sort(dst[start:])
	return dst
}

// WaitPeers blocks until at least n peers are open and returns them,
// sorted. It fails with ctx's error, or transport.ErrClosed.
func (s *PeerSet[P]) WaitPeers(ctx context.Context, n int) ([]transport.Peer, error) {
	for {
		s.mu.RLock()
		closed, ch := *s.closed, s.changed
		s.mu.RUnlock()
		if closed {
			return nil, transport.ErrClosed
		}
		if ps := s.Peers(nil); len(ps) >= n {
			return ps, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ch:
		}
	}
}

// Events appends the events since the last call to dst and returns the
// extended slice.
func (s *PeerSet[P]) Events(dst []transport.PeerEvent) []transport.PeerEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	dst = append(dst, s.events...)
	s.events = s.events[:0]
	return dst
}

// EmitLocked records an event and wakes WaitPeers. The transport's lock
// must be held for writing.
func (s *PeerSet[P]) EmitLocked(e transport.PeerEvent) {
	switch {
	case len(s.events) < s.max:
		s.events = append(s.events, e)
	case s.dropOldest:
		s.events = append(s.events[:0], s.events[1:]...)
		s.events = append(s.events, e)
	default:
		s.dropped++
	}
	s.NotifyLocked()
}

// NotifyLocked wakes WaitPeers to look again (the transport closed, or a
// peer opened without an event). The transport's lock must be held for
// writing.
func (s *PeerSet[P]) NotifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// DroppedLocked counts the events dropped at the bound (never with
// dropOldest). The transport's lock must be held.
func (s *PeerSet[P]) DroppedLocked() uint64 { return s.dropped }
