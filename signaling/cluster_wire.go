package signaling

import (
	"errors"
	"fmt"
)

// A signal relayed between instances is one NATS message on the subject of
// the addressee's instance:
//
//	1       version (1)
//	1       flags: bit 0 set when the sender's allowance paid for it
//	16      to: the addressee's id
//	16      from: the sender's id
//	1       n: the length of the room name
//	n       the room the sender sent it in
//	rest    the signal envelope for the addressee, byte for byte
//
// NATS is the operator's, but its bytes are still checked: anything else
// is counted and dropped.
const (
	relayVersion  = 1
	relayOverhead = 2 + 2*idLen + 1
)

var errRelay = errors.New("signaling: cluster relay malformed")

type relayMsg struct {
	to, from, room string
	free           bool
	signal         []byte
}

// appendRelay appends the relay of signal from from to to in room.
func appendRelay(b []byte, to, from string, free bool, room string, signal []byte) []byte {
	var flags byte
	if free {
		flags = 1
	}
	b = append(b, relayVersion, flags)
	b = append(b, to...)
	b = append(b, from...)
	b = append(b, byte(len(room)))
	b = append(b, room...)
	return append(b, signal...)
}

// parseRelay decodes a relay whose signal is at most max bytes.
func parseRelay(b []byte, max int) (relayMsg, error) {
	var m relayMsg
	if len(b) < relayOverhead {
		return m, fmt.Errorf("%w: %d bytes", errRelay, len(b))
	}
	if b[0] != relayVersion || b[1]&^1 != 0 {
		return m, fmt.Errorf("%w: version %d, flags %#x", errRelay, b[0], b[1])
	}
	m.free = b[1] == 1
	m.to, m.from = string(b[2:2+idLen]), string(b[2+idLen:2+2*idLen])
	if !validID(m.to) || !validID(m.from) {
		return m, fmt.Errorf("%w: malformed id", errRelay)
	}
	n := int(b[relayOverhead-1])
	rest := b[relayOverhead:]
	if n > len(rest) || !validRoom(string(rest[:n])) {
		return m, fmt.Errorf("%w: malformed room", errRelay)
	}
	m.room, m.signal = string(rest[:n]), rest[n:]
	if len(m.signal) == 0 || len(m.signal) > max {
		return m, fmt.Errorf("%w: signal of %d bytes", errRelay, len(m.signal))
	}
	return m, nil
}
