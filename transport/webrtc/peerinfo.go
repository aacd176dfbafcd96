package webrtc

import (
	"fmt"
	"strings"
	"time"

	"github.com/rollnet/rollnet/transport"
)

// peerInfo describes one peer's connection, for a heads-up display or a
// log line.
type peerInfo struct {
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
	// Path is what the selected pair costs: "direct" (host candidates
	// on both ends as this end sees them: a LAN, public addresses, or a
	// NAT only the other end can see), "stun" (peer to peer through a
	// NAT's mapping on one end or both) or "relay" (through a TURN relay
	// on one end or both: every packet costs the relay's bandwidth); ""
	// until one is selected.
	Path string
	// Protocol is "udp" or "tcp": the transport of this end's first hop on
	// the selected pair (to its TURN server when LocalCandidate is
	// "relay": "tcp" when UDP is blocked and TURN runs over TCP); "" until
	// one is selected.
	Protocol string
}

// The paths, from the candidates' types.
const (
	// pathDirect: host candidates on both ends as this end sees them: a
	// LAN, public addresses, or a NAT only the other end can see (a host
	// behind a NAT talking to a public peer pairs its host candidate with
	// the peer's, while the peer sees it as peer-reflexive: "stun").
	pathDirect = "direct"
	// pathSTUN: peer to peer through a NAT's mapping on one end or both
	// (a server-reflexive or peer-reflexive candidate), no relay.
	pathSTUN = "stun"
	// pathRelay: through a TURN relay on one end or both; every packet
	// costs the relay's bandwidth.
	pathRelay = "relay"
)

// pathOf is the path of a pair of candidates of types local and remote
// ("host", "srflx", "prflx", "relay"), "" if either is unknown.
func pathOf(local, remote string) string {
	switch {
	case local == "" || remote == "":
		return ""
	case local == "relay" || remote == "relay":
		return pathRelay
	case local == "host" && remote == "host":
		return pathDirect
	}
	return pathSTUN
}

// Route describes the selected pair in a few words for a report line, as
// "relay over TCP (relay to srflx)"; "" until a pair is selected.
func (i peerInfo) Route() string {
	if i.Path == "" {
		return ""
	}
	proto := strings.ToUpper(i.Protocol)
	if proto == "" {
		proto = "?"
	}
	return fmt.Sprintf("%s over %s (%s to %s)", i.Path, proto, i.LocalCandidate, i.RemoteCandidate)
}

// peerInfo returns what is known about peer's connection. It asks pion
// for its statistics (in a browser, the page's getStats, waiting for its
// promise: never call it from a browser callback; see browser_js.go for
// what a browser does not report) and allocates: call it
// now and then, not every frame. It fails with transport.ErrUnknownPeer,
// transport.ErrPeerGone or transport.ErrClosed.
func (t *rtcTransport) peerInfo(peer transport.Peer) (peerInfo, error) {
	t.mu.RLock()
	if t.closed {
		t.mu.RUnlock()
		return peerInfo{}, transport.ErrClosed
	}
	p, ok := t.peers[peer]
	if !ok {
		t.mu.RUnlock()
		return peerInfo{}, transport.ErrUnknownPeer
	}
	if p.gone != nil {
		t.mu.RUnlock()
		return peerInfo{}, transport.ErrPeerGone
	}
	info := peerInfo{Peer: peer, Open: p.rw != nil, Interrupted: p.interrupted}
	c := p.c
	t.mu.RUnlock()
	if c != nil {
		c.readStats(&info) // conn_native.go, browser_js.go
		info.Path = pathOf(info.LocalCandidate, info.RemoteCandidate)
	}
	return info, nil
}
