package wire

import "encoding/binary"

// rejoinLen is the size of a Rejoin message: header, Kind u8, Players u64
// LE, Frame i32 LE, Match u64 LE, Secret [16], Reason u8, Frozen u64 LE.
const rejoinLen = HeaderLen + 1 + 8 + 4 + 8 + SecretLen + 1 + 8

// SecretLen is the length of a player's rejoin secret.
const SecretLen = 16

// RejoinKind says what a Rejoin message is for.
type RejoinKind uint8

// The kinds of Rejoin messages. A peer tells every other its rejoin
// identity once synchronized (Token, answered TokenAck); a player that
// dropped asks to come back (Request) and is accepted at a frame (Accept)
// or refused (Refuse, Reason); the peer that accepts it tells every other
// the frame (At, answered AtAck).
const (
	RejoinToken    RejoinKind = iota + 1 // Match: sender's share of the match id; Secret: its secret; Players: its players
	RejoinTokenAck                       // Match: the share acknowledged
	RejoinRequest                        // Match: the match id; Secret: the player's secret; Players: its players
	RejoinAccept                         // Players come back at Frame; Match: the match id; Frozen: the players frozen then
	RejoinRefuse                         // Reason says why
	RejoinAt                             // Players come back at Frame (to the other peers)
	RejoinAtAck                          // Players, Frame: the At acknowledged
)

// Rejoin carries the rejoin protocol's messages (see RejoinKind). Every
// kind has the same fixed layout; fields a kind does not use are zero.
type Rejoin struct {
	Seq     uint16
	Kind    RejoinKind
	Players uint64
	Frame   int32
	Match   uint64
	Secret  [SecretLen]byte
	Reason  uint8
	Frozen  uint64 // Accept: the players gone (their input frozen) at Frame
}

// Len is the encoded size in bytes.
func (m Rejoin) Len() int { return rejoinLen }

// Append appends the encoded message to b (no allocation when b has room).
func (m Rejoin) Append(b []byte) []byte {
	b = appendHeader(b, TypeRejoin, m.Seq)
	b = append(b, byte(m.Kind))
	b = binary.LittleEndian.AppendUint64(b, m.Players)
	b = binary.LittleEndian.AppendUint32(b, uint32(m.Frame))
	b = binary.LittleEndian.AppendUint64(b, m.Match)
	b = append(b, m.Secret[:]...)
	b = append(b, m.Reason)
	return binary.LittleEndian.AppendUint64(b, m.Frozen)
}

// ParseRejoin decodes a whole Rejoin packet. An unknown Kind is
// ErrMalformed.
func ParseRejoin(b []byte) (Rejoin, int, error) {
	var m Rejoin
	var err error
	if m.Seq, err = parseHeaderOf(b, TypeRejoin); err != nil {
		return Rejoin{}, 0, err
	}
	if len(b) < rejoinLen {
		return Rejoin{}, 0, ErrShort
	}
	i := HeaderLen
	m.Kind = RejoinKind(b[i])
	if m.Kind < RejoinToken || m.Kind > RejoinAtAck {
		return Rejoin{}, 0, ErrMalformed
	}
	m.Players = binary.LittleEndian.Uint64(b[i+1:])
	m.Frame = int32(binary.LittleEndian.Uint32(b[i+9:]))
	m.Match = binary.LittleEndian.Uint64(b[i+13:])
	copy(m.Secret[:], b[i+21:i+21+SecretLen])
	m.Reason = b[i+21+SecretLen]
	m.Frozen = binary.LittleEndian.Uint64(b[i+22+SecretLen:])
	n, err := end(b, rejoinLen)
	if err != nil {
		return Rejoin{}, 0, err
	}
	return m, n, nil
}
