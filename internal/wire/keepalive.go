package wire

// KeepAlive keeps an idle link alive. It is a header alone.
type KeepAlive struct {
	Seq uint16
}

// Len is the encoded size in bytes.
func (m KeepAlive) Len() int { return HeaderLen }

// Append appends the encoded message to b (no allocation when b has room).
func (m KeepAlive) Append(b []byte) []byte { return appendHeader(b, TypeKeepAlive, m.Seq) }

// ParseKeepAlive decodes a whole KeepAlive packet.
func ParseKeepAlive(b []byte) (KeepAlive, int, error) {
	seq, err := parseHeaderOf(b, TypeKeepAlive)
	if err != nil {
		return KeepAlive{}, 0, err
	}
	n, err := end(b, HeaderLen)
	if err != nil {
		return KeepAlive{}, 0, err
	}
	return KeepAlive{Seq: seq}, n, nil
}
