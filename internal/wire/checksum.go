package wire

import "encoding/binary"

// Checksum reports the checksum of the sender's state at Frame, for desync
// detection. Layout: header, Frame as uvarint(uint32(Frame)+1), Checksum u32 LE.
type Checksum struct {
	Seq      uint16
	Frame    int32
	Checksum uint32
}

// Len is the encoded size in bytes.
func (m Checksum) Len() int { return HeaderLen + frameLen(m.Frame) + 4 }

// Append appends the encoded message to b (no allocation when b has room).
func (m Checksum) Append(b []byte) []byte {
	b = appendHeader(b, TypeChecksum, m.Seq)
	b = appendFrame(b, m.Frame)
	return binary.LittleEndian.AppendUint32(b, m.Checksum)
}

// ParseChecksum decodes a whole Checksum packet.
func ParseChecksum(b []byte) (Checksum, int, error) {
	var m Checksum
	var err error
	if m.Seq, err = parseHeaderOf(b, TypeChecksum); err != nil {
		return Checksum{}, 0, err
	}
	var i int
	if m.Frame, i, err = readFrame(b, HeaderLen); err != nil {
		return Checksum{}, 0, err
	}
	if len(b)-i < 4 {
		return Checksum{}, 0, ErrShort
	}
	m.Checksum = binary.LittleEndian.Uint32(b[i:])
	n, err := end(b, i+4)
	if err != nil {
		return Checksum{}, 0, err
	}
	return m, n, nil
}
