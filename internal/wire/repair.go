package wire

import "encoding/binary"

// Desync repair (P2P protocol 5) shares TypeRejoin with the rejoin
// protocol: every type number is taken, and a repair, like a rejoin, moves
// a peer's simulation back onto the match. Its kinds start at RepairAsk,
// far from the rejoin kinds; a peer of protocol 4 never gets one (the
// handshake refuses it).
const (
	// RepairAsk: the sender's state differs from the truth's at Frame (a
	// checksum frame): the receiver (the truth) is asked for its state.
	RepairAsk RejoinKind = iota + 16
	// RepairPart: chunk Part of the state after Frame, Size bytes in all,
	// whose CRC32-C is Sum; Data is the chunk (RepairChunk bytes, the last
	// one the rest).
	RepairPart
	// RepairAck: the receiver of the state after Frame holds its chunks
	// 0..Part (Part -1: none), and those Sum names past them (bit d: part
	// Part+2+d).
	RepairAck
)

// repairHead is the size of a Repair message without its Data: header,
// Kind u8, Frame i32 LE, Sum u32 LE, Size u32 LE, Part i32 LE.
const repairHead = HeaderLen + 1 + 4 + 4 + 4 + 4

// RepairChunk is the most state bytes one RepairPart carries: a whole
// packet less the head.
const RepairChunk = MaxPacket - repairHead

// MaxRepairState is the largest state a repair carries (16 MiB): a Size
// above it is malformed.
const MaxRepairState = 1 << 24

// Repair is a message of the desync repair (see RepairAsk). Kinds other
// than RepairPart carry no Data; fields a kind does not use are zero.
type Repair struct {
	Seq   uint16
	Kind  RejoinKind
	Frame int32
	Sum   uint32
	Size  uint32
	Part  int32
	Data  []byte // RepairPart: aliases the parsed packet
}

// IsRepair reports whether the Rejoin-typed packet b (its header parsed)
// is a Repair rather than a Rejoin.
func IsRepair(b []byte) bool { return len(b) > HeaderLen && RejoinKind(b[HeaderLen]) >= RepairAsk }

// Append appends the encoded message to b (no allocation when b has room).
func (m *Repair) Append(b []byte) []byte {
	b = appendHeader(b, TypeRejoin, m.Seq)
	b = append(b, byte(m.Kind))
	b = binary.LittleEndian.AppendUint32(b, uint32(m.Frame))
	b = binary.LittleEndian.AppendUint32(b, m.Sum)
	b = binary.LittleEndian.AppendUint32(b, m.Size)
	b = binary.LittleEndian.AppendUint32(b, uint32(m.Part))
	return append(b, m.Data...)
}

// ParseRepair decodes a whole Repair packet into m (m.Data aliases b). A
// kind it does not know, a frame or part out of range, a Size above
// MaxRepairState, a chunk whose length is not its part's (RepairChunk,
// the last one the rest of Size), or Data on another kind, is
// ErrMalformed.
func ParseRepair(b []byte, m *Repair) error {
	seq, err := parseHeaderOf(b, TypeRejoin)
	if err != nil {
		return err
	}
	if len(b) < repairHead {
		return ErrShort
	}
	i := HeaderLen
	*m = Repair{
		Seq:   seq,
		Kind:  RejoinKind(b[i]),
		Frame: int32(binary.LittleEndian.Uint32(b[i+1:])),
		Sum:   binary.LittleEndian.Uint32(b[i+5:]),
		Size:  binary.LittleEndian.Uint32(b[i+9:]),
		Part:  int32(binary.LittleEndian.Uint32(b[i+13:])),
	}
	data := b[repairHead:]
	if m.Frame < 0 || m.Size > MaxRepairState {
		return ErrMalformed
	}
	switch m.Kind {
	case RepairAsk:
		if m.Part != 0 || m.Size != 0 || m.Sum != 0 || len(data) != 0 {
			return ErrMalformed
		}
	case RepairAck:
		if m.Part < -1 || m.Size != 0 || len(data) != 0 {
			return ErrMalformed
		}
	case RepairPart:
		off := int64(m.Part) * RepairChunk
		if m.Part < 0 || off >= int64(m.Size) || int64(len(data)) != min(RepairChunk, int64(m.Size)-off) {
			return ErrMalformed
		}
		m.Data = data
	default:
		return ErrMalformed
	}
	return nil
}
