package udp

import (
	"time"

	"github.com/rollnet/rollnet/transport"
)

// Path reports the route to p (transport.PathReporter): "direct udp to
// ADDR", ADDR its address as this end sees it, and the round trip of the
// transport's own pings (each side pings each second; smoothed; 0 until
// the first pong, and with a peer that does not answer). It fails with
// transport.ErrUnknownPeer, ErrPeerGone or ErrClosed. It allocates the
// route's text.
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
	return transport.PathInfo{Route: "direct udp to " + c.addr.String(), RTT: time.Duration(c.rtt.Load())}, nil
}
