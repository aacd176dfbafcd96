package wire

// Disconnect tells the peer this side is leaving. It is a header alone.
type Disconnect struct {
	Seq uint16
}

// Len is the encoded size in bytes.
func (m Disconnect) Len() int { return HeaderLen }

// Append appends the encoded message to b (no allocation when b has room).
func (m Disconnect) Append(b []byte) []byte { return appendHeader(b, TypeDisconnect, m.Seq) }

// ParseDisconnect decodes a whole Disconnect packet.
func ParseDisconnect(b []byte) (Disconnect, int, error) {
	seq, err := parseHeaderOf(b, TypeDisconnect)
	if err != nil {
		return Disconnect{}, 0, err
	}
	n, err := end(b, HeaderLen)
	if err != nil {
		return Disconnect{}, 0, err
	}
	return Disconnect{Seq: seq}, n, nil
}
