package wire

import "encoding/binary"

// QualityReport carries the sender's frame advantage and a timestamp of the
// sender's clock, echoed back in a QualityReply for round-trip time.
// Layout: header, FrameAdvantage zigzag varint, Ping uvarint.
type QualityReport struct {
	Seq            uint16
	FrameAdvantage int32
	Ping           uint64
}

// QualityReply echoes a QualityReport's Ping as Pong.
// Layout: header, Pong uvarint.
type QualityReply struct {
	Seq  uint16
	Pong uint64
}

// Len is the encoded size in bytes.
func (m QualityReport) Len() int { return HeaderLen + int32Len(m.FrameAdvantage) + uvarintLen(m.Ping) }

// Append appends the encoded message to b (no allocation when b has room).
func (m QualityReport) Append(b []byte) []byte {
	b = appendHeader(b, TypeQualityReport, m.Seq)
	b = appendInt32(b, m.FrameAdvantage)
	return binary.AppendUvarint(b, m.Ping)
}

// ParseQualityReport decodes a whole QualityReport packet.
func ParseQualityReport(b []byte) (QualityReport, int, error) {
	var m QualityReport
	var err error
	if m.Seq, err = parseHeaderOf(b, TypeQualityReport); err != nil {
		return QualityReport{}, 0, err
	}
	i := HeaderLen
	if m.FrameAdvantage, i, err = readInt32(b, i); err != nil {
		return QualityReport{}, 0, err
	}
	if m.Ping, i, err = readUvarint(b, i); err != nil {
		return QualityReport{}, 0, err
	}
	n, err := end(b, i)
	if err != nil {
		return QualityReport{}, 0, err
	}
	return m, n, nil
}

// Len is the encoded size in bytes.
func (m QualityReply) Len() int { return HeaderLen + uvarintLen(m.Pong) }

// Append appends the encoded message to b (no allocation when b has room).
func (m QualityReply) Append(b []byte) []byte {
	b = appendHeader(b, TypeQualityReply, m.Seq)
	return binary.AppendUvarint(b, m.Pong)
}

// ParseQualityReply decodes a whole QualityReply packet.
func ParseQualityReply(b []byte) (QualityReply, int, error) {
	var m QualityReply
	var err error
	if m.Seq, err = parseHeaderOf(b, TypeQualityReply); err != nil {
		return QualityReply{}, 0, err
	}
	i := HeaderLen
	if m.Pong, i, err = readUvarint(b, i); err != nil {
		return QualityReply{}, 0, err
	}
	n, err := end(b, i)
	if err != nil {
		return QualityReply{}, 0, err
	}
	return m, n, nil
}
