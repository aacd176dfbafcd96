//go:build !js

package quic

import (
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// PeerClaims returns the claims of the connect token an admitted peer
// presented (host with Config.TokenSecret), and whether it has one: a host
// that runs several matches routes a peer to its match by Claims.Room.
func (t *qtransport) PeerClaims(p transport.Peer) (connecttoken.Claims, bool) {
	t.mu.RLock()
	pe := t.peers[p]
	t.mu.RUnlock()
	if pe == nil || pe.slot == nil || t.host == nil {
		return connecttoken.Claims{}, false
	}
	t.host.mu.Lock()
	defer t.host.mu.Unlock()
	if pe.slot.ticket == nil || !pe.slot.redeemed {
		return connecttoken.Claims{}, false
	}
	return pe.slot.ticket.Claims, true
}
