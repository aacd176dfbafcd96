package wire

import "encoding/binary"

// Wire constants.
const (
	// Version is the wire version, carried in the high nibble of every
	// message's first byte. A peer speaking another version gets ErrVersion.
	Version = 1
	// MaxPacket is the largest message, in bytes, this package emits or
	// accepts.
	MaxPacket = 1200
	// MaxPlayers is the most players an Input message can describe.
	MaxPlayers = 64
	// MaxInputSize is the most bytes one player's input of one frame may take.
	MaxInputSize = 32
	// MaxFrames is the most frames one Input message carries.
	MaxFrames = 128
	// HeaderLen is the size of the header every message starts with:
	// the version-and-type byte, then the sequence number (u16 LE).
	HeaderLen = 3
)

// Type is a message type, carried in the low nibble of every message's first
// byte.
type Type uint8

// TypeApp (0) is reserved for the layer above a session, on the same
// transport: package netplay's messages (names, round-trip pings, the
// game's own small messages; their layout is in netplay's documentation).
// No session sends it, and ParseHeader refuses it (ErrType): a session
// handed one counts it as malformed, so the layer above takes them off the
// transport first. A program with messages of its own should send them
// through netplay rather than take another number: all sixteen are used.
const TypeApp Type = 0

// The message types.
const (
	TypeSyncRequest Type = iota + 1
	TypeSyncReply
	TypeInput
	TypeInputAck
	TypeQualityReport
	TypeQualityReply
	TypeKeepAlive
	TypeChecksum
	TypeDisconnect
	TypeRejoin
)

var typeNames = [...]string{
	TypeSyncRequest:   "SyncRequest",
	TypeSyncReply:     "SyncReply",
	TypeInput:         "Input",
	TypeInputAck:      "InputAck",
	TypeQualityReport: "QualityReport",
	TypeQualityReply:  "QualityReply",
	TypeKeepAlive:     "KeepAlive",
	TypeChecksum:      "Checksum",
	TypeDisconnect:    "Disconnect",
	TypeRejoin:        "Rejoin",
}

// String names the type, for logs.
func (t Type) String() string {
	if t.valid() && int(t) < len(typeNames) {
		return typeNames[t]
	}
	return authTypeName(t)
}

func (t Type) valid() bool { return t >= TypeSyncRequest && t <= typeLast }

// ParseHeader reads the version-and-type byte and the sequence number every
// message starts with, and returns n == HeaderLen. An unknown version is
// ErrVersion (checked first, so a peer of another release is named even from
// one byte), an unknown type ErrType, a short buffer an error wrapping
// io.ErrUnexpectedEOF.
func ParseHeader(b []byte) (t Type, seq uint16, n int, err error) {
	if len(b) == 0 {
		return 0, 0, 0, ErrShort
	}
	if b[0]>>4 != Version {
		return 0, 0, 0, ErrVersion
	}
	t = Type(b[0] & 0x0f)
	if !t.valid() {
		return 0, 0, 0, ErrType
	}
	if len(b) < HeaderLen {
		return 0, 0, 0, ErrShort
	}
	return t, binary.LittleEndian.Uint16(b[1:]), HeaderLen, nil
}

// appendHeader appends the header of a message of type t.
func appendHeader(b []byte, t Type, seq uint16) []byte {
	return append(b, Version<<4|byte(t), byte(seq), byte(seq>>8))
}

// parseHeaderOf parses the header and checks the type is want.
func parseHeaderOf(b []byte, want Type) (seq uint16, err error) {
	t, seq, _, err := ParseHeader(b)
	if err != nil {
		return 0, err
	}
	if t != want {
		return 0, ErrType
	}
	return seq, nil
}
