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
