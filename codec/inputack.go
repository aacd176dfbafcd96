package codec

// InputAck acknowledges inputs without carrying any (spectators send no
// inputs). Ack is the newest frame received contiguously, -1 for none.
// Layout: header, Ack as uvarint(uint32(Ack)+1).
type InputAck struct {
	Seq uint16
	Ack int32
}

// Len is the encoded size in bytes.
func (m InputAck) Len() int { return HeaderLen + frameLen(m.Ack) }

// Append appends the encoded message to b (no allocation when b has room).
func (m InputAck) Append(b []byte) []byte {
	b = appendHeader(b, TypeInputAck, m.Seq)
	return appendFrame(b, m.Ack)
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
	n, err := end(b, i)
	if err != nil {
		return InputAck{}, 0, err
	}
	return m, n, nil
}
