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
