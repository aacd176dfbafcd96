package quic

import (
	"time"

	"github.com/rollnet/rollnet/transport"
)

// Path reports the route to p (transport.PathReporter): "direct quic to
// ADDR", ADDR its UDP address as this end sees it ("webtransport to
// ADDR" for a WebTransport session, "webtransport" in a browser, which
// does not show the address), with QUIC's smoothed round trip where the
// connection measures it (quic-go's; 0 for WebTransport). It fails with
// transport.ErrUnknownPeer, ErrPeerGone or ErrClosed. It allocates the
// route's text.
func (t *qtransport) Path(p transport.Peer) (transport.PathInfo, error) {
	t.mu.RLock()
	pe, ok := t.peers[p]
	closed := t.closed
	var gone error
	if ok {
		gone = pe.gone
	}
	t.mu.RUnlock()
	switch {
	case closed:
		return transport.PathInfo{}, transport.ErrClosed
	case !ok:
		return transport.PathInfo{}, transport.ErrUnknownPeer
	case gone != nil:
		return transport.PathInfo{}, transport.ErrPeerGone
	}
	info := transport.PathInfo{Route: "direct quic"}
	if m, ok := pe.conn.(measured); ok {
		info.Route, info.RTT = m.path()
	}
	if a := pe.conn.RemoteAddr(); a != nil {
		info.Route += " to " + a.String()
	}
	return info, nil
}

// measured is a connection that knows what it runs over (its route's
// first words) and its round trip.
type measured interface {
	path() (route string, rtt time.Duration)
}
