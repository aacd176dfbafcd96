package wire

import (
	"encoding/binary"
	"math"
)

// InputAck acknowledges inputs without carrying any (spectators send no
// inputs). Ack is the newest frame received contiguously, -1 for none. Like
// an Input it may carry the sender's checksum of a confirmed frame.
// Layout: header, uvarint((uint32(Ack)+1)<<1 | HasChecksum), then, when
// that bit is set and only then, CheckFrame as uvarint and Checksum u32
// LE. Nothing follows (a byte left over is malformed: see Input).
type InputAck struct {
	Seq uint16
	Ack int32

	HasChecksum bool   // CheckFrame and Checksum are carried
	CheckFrame  int32  // the frame (>= 0) whose state Checksum is of
	Checksum    uint32 // CRC32-C of the sender's state after CheckFrame
}

// Len is the encoded size in bytes.
func (m InputAck) Len() int {
	n := HeaderLen + uvarintLen(m.ackWord())
	if m.HasChecksum && m.CheckFrame >= 0 {
		n += uvarintLen(uint64(uint32(m.CheckFrame))) + 4
	}
	return n
}

// Append appends the encoded message to b (no allocation when b has room).
// A checksum of a negative frame is not encoded.
func (m InputAck) Append(b []byte) []byte {
	b = appendHeader(b, TypeInputAck, m.Seq)
	b = binary.AppendUvarint(b, m.ackWord())
	if m.HasChecksum && m.CheckFrame >= 0 {
		b = binary.AppendUvarint(b, uint64(m.CheckFrame))
		b = binary.LittleEndian.AppendUint32(b, m.Checksum)
	}
	return b
}

// ackWord is Ack and the checksum flag, as coded.
func (m InputAck) ackWord() uint64 {
	w := uint64(uint32(m.Ack)+1) << 1
	if m.HasChecksum && m.CheckFrame >= 0 {
		w |= 1
	}
	return w
}

// ParseInputAck decodes a whole InputAck packet.
func ParseInputAck(b []byte) (InputAck, int, error) {
	var m InputAck
	var err error
	if m.Seq, err = parseHeaderOf(b, TypeInputAck); err != nil {
		return InputAck{}, 0, err
	}
	w, i, err := readUvarint(b, HeaderLen)
	if err != nil {
		return InputAck{}, 0, err
	}
	if w>>1 > math.MaxUint32 {
		return InputAck{}, 0, ErrMalformed
	}
	m.Ack = int32(uint32(w>>1) - 1)
	if w&1 == 1 {
		var v uint64
		if v, i, err = readUvarint(b, i); err != nil {
			return InputAck{}, 0, err
		}
		if v > math.MaxInt32 {
			return InputAck{}, 0, ErrMalformed
		}
		if len(b)-i < 4 {
			return InputAck{}, 0, ErrShort
		}
		m.HasChecksum, m.CheckFrame, m.Checksum = true, int32(v), binary.LittleEndian.Uint32(b[i:])
		i += 4
	}
	n, err := end(b, i)
	if err != nil {
		return InputAck{}, 0, err
	}
	return m, n, nil
}
