package udp

import "github.com/rollnet/rollnet/transport"

// Path reports the route to p (transport.PathReporter): "direct udp to
// ADDR", ADDR its address as this end sees it. This transport measures no
// round trip of its own (RTT 0: the session's is the one to read). It
// fails with transport.ErrUnknownPeer, ErrPeerGone or ErrClosed. It
// allocates the route's text.
func (t *udpTransport) Path(p transport.Peer) (transport.PathInfo, error) {
	if t.isDone.Load() {
		return transport.PathInfo{}, transport.ErrClosed
	}
	t.mu.RLock()
	c := t.peers[p]
	t.mu.RUnlock()
	switch {
	case c == nil:
		return transport.PathInfo{}, transport.ErrUnknownPeer
	case c.is(stateGone):
		return transport.PathInfo{}, transport.ErrPeerGone
	}
	return transport.PathInfo{Route: "direct udp to " + c.addr.String()}, nil
}
