package signaling

import "github.com/rollnet/rollnet/signaling/internal/wire"

// The server's names for the protocol's messages, which live in
// internal/wire with their validation (envelope.go there), shared with
// the client (signaling/client).

// Message types of the envelope, and the error code of an "error" one.
const (
	typeJoin       = wire.TypeJoin
	typePeerJoined = wire.TypePeerJoined
	typePeerLeft   = wire.TypePeerLeft
	typeSignal     = wire.TypeSignal
	typeError      = wire.TypeError

	errCodeUnknownPeer = wire.ErrCodeUnknownPeer
)

// envelope is every message of the protocol, in both directions.
type envelope = wire.Envelope

// signalOverhead bounds the bytes of a signal envelope besides its payload.
const signalOverhead = wire.SignalOverhead

// direction says who sent an envelope.
type direction = wire.Direction

const (
	fromClient = wire.FromClient
	fromServer = wire.FromServer
)

// errProtocolVersion: an envelope of a version this package does not speak.
var errProtocolVersion = wire.ErrUnsupportedVersion

// appendSignal appends the signal envelope with the payload's bytes
// unchanged (wire.AppendSignal).
func appendSignal(b []byte, v int, peer string, kind wire.SignalKind, payload []byte) []byte {
	return wire.AppendSignal(b, v, peer, kind, payload)
}

// parseEnvelope decodes and validates one message sent in direction dir;
// anything that does not fit the protocol exactly wraps wire.ErrMalformed.
func parseEnvelope(b []byte, dir direction) (envelope, error) { return wire.ParseEnvelope(b, dir) }

// spokenVersions lists the versions the server speaks, oldest first.
func spokenVersions() []int { return wire.SpokenVersions() }

// validID reports whether s is a server-assigned id.
func validID(s string) bool { return wire.ValidID(s) }

// validRoom reports whether s is a valid room name.
func validRoom(s string) bool { return wire.ValidRoom(s) }

// idLen is the length of a server-assigned id.
const idLen = wire.IDLen
