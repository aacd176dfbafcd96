package webrtc

import (
	"time"

	"github.com/rollnet/rollnet/transport"
)

// PeerInfo describes one peer's connection, for a heads-up display or a
// log line.
type PeerInfo struct {
	Peer        transport.Peer
	Open        bool // the data channel is open
	Interrupted bool // ICE disconnected: nothing heard lately
	// RTT is the latest round trip of ICE's keep-alives on the selected
	// candidate pair (0 until measured): the network alone, without the
	// peers' frame loops.
	RTT time.Duration
	// LocalCandidate and RemoteCandidate are the types of the selected
	// pair's candidates: "host", "srflx", "prflx" or "relay" (TURN); empty
	// until one is selected.
	LocalCandidate, RemoteCandidate string
}

// PeerInfo returns what is known about peer's connection. It asks pion
// for its statistics (in a browser, the page's getStats, waiting for its
// promise: never call it from a browser callback) and allocates: call it
// now and then, not every frame. It fails with transport.ErrUnknownPeer,
// transport.ErrPeerGone or transport.ErrClosed.
func (t *Transport) PeerInfo(peer transport.Peer) (PeerInfo, error) {
	t.mu.RLock()
	if t.closed {
		t.mu.RUnlock()
		return PeerInfo{}, transport.ErrClosed
	}
	p, ok := t.peers[peer]
	if !ok {
		t.mu.RUnlock()
		return PeerInfo{}, transport.ErrUnknownPeer
	}
	if p.gone != nil {
		t.mu.RUnlock()
		return PeerInfo{}, transport.ErrPeerGone
	}
	info := PeerInfo{Peer: peer, Open: p.rw != nil, Interrupted: p.interrupted}
	pc := p.pc
	t.mu.RUnlock()
	if pc != nil {
		readStats(pc, &info) // native.go, browser_js.go
	}
	return info, nil
}
