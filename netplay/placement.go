package netplay

import (
	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/transport"
)

// placement is where the fleet placed a client, and its host's peer id on
// the QUIC transport.
type placement struct {
	fleet.Reply
	peer transport.Peer
}

// Placement is the fleet's answer for a match started with Config.Fleet
// (its host, address and room), once the match is placed; ok is false
// before, and for a match not placed by a fleet.
func (m *Match[S, I]) Placement() (r fleet.Reply, ok bool) {
	if m.link.placed == nil {
		return fleet.Reply{}, false
	}
	r = m.link.placed.Reply
	r.Grant = "" // used: nothing to show
	return r, true
}
