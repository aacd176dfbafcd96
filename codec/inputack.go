package codec

import (
	"encoding/binary"
	"math"
)

// InputAck acknowledges inputs without carrying any (spectators send no
// inputs). Ack is the newest frame received contiguously, -1 for none. Like
// an Input it may carry the sender's checksum of a confirmed frame.
// Layout: header, Ack as uvarint(uint32(Ack)+1), then, when bytes remain,
// CheckFrame as uvarint and Checksum u32 LE.
type InputAck struct {
	Seq uint16
	Ack int32

	HasChecksum bool   // CheckFrame and Checksum are carried
	CheckFrame  int32  // the frame (>= 0) whose state Checksum is of
	Checksum    uint32 // CRC32-C of the sender's state after CheckFrame
}

// Len is the encoded size in bytes.
func (m InputAck) Len() int {
	n := HeaderLen + frameLen(m.Ack)
	if m.HasChecksum {
		n += uvarintLen(uint64(uint32(m.CheckFrame))) + 4
	}
	return n
}

// Append appends the encoded message to b (no allocation when b has room).
// A checksum of a negative frame is not encoded.
func (m InputAck) Append(b []byte) []byte {
	b = appendHeader(b, TypeInputAck, m.Seq)
	b = appendFrame(b, m.Ack)
	if m.HasChecksum && m.CheckFrame >= 0 {
		b = binary.AppendUvarint(b, uint64(m.CheckFrame))
		b = binary.LittleEndian.AppendUint32(b, m.Checksum)
	}
	return b
}

// ParseInputAck decodes a whole InputAck packet.
func ParseInputAck(b []byte) (InputAck, int, error) {
	var m InputAck
	var err error
	if m.Seq, err = parseHeaderOf(b, TypeInputAck); err != nil {
		return InputAck{}, 0, err
	}
	var i int
	if m.Ack, i, err = readFrame(b, HeaderLen); err != nil {
		return InputAck{}, 0, err
	}
	if i < len(b) {
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
