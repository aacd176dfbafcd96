package wire

import "encoding/binary"

// StateFragment is one piece of an encoded state body (StateBody) a host
// sends a client. A body longer than MaxChunk is cut into chunks of
// MaxChunk bytes (the last shorter), at most MaxFragments.
//
// Layout after the header (authority protocol 3): a body sent whole
// (Count 1) is the rest of the packet, its first byte, with its high bit
// set (every StateBody's is), telling it from the other form: Count u8
// (2..MaxFragments), Msg uvarint (the body's number, per client,
// increasing), Index u8 (below Count), then the chunk. A chunk is
// 1..MaxChunk bytes. A body that fits one packet needs no number: nothing
// of it can go missing, and its frame orders it. Protocol 2 sent a Count
// of 1 before a whole body; protocol 1 sent Msg, Index and Count always.
type StateFragment struct {
	Seq          uint16
	Msg          uint32 // 0 when Count is 1
	Index, Count uint8
	Chunk        []byte
}

// Len is the encoded size in bytes.
func (m StateFragment) Len() int {
	if m.Count == 1 {
		return HeaderLen + len(m.Chunk)
	}
	return HeaderLen + 1 + uvarintLen(uint64(m.Msg)) + 1 + len(m.Chunk)
}

// Append appends the encoded message to b (no allocation when b has room).
// It appends nothing for a fragment that would not parse (an empty or
// oversized chunk, Index not below Count, Count past MaxFragments, a
// single fragment with a number or whose chunk does not start with a
// byte with its high bit set).
func (m StateFragment) Append(b []byte) []byte {
	if len(m.Chunk) == 0 || len(m.Chunk) > MaxChunk || m.Count == 0 || m.Count > MaxFragments || m.Index >= m.Count ||
		(m.Count == 1 && (m.Msg != 0 || m.Chunk[0]&bodyMark == 0)) {
		return b
	}
	b = appendHeader(b, TypeStateFragment, m.Seq)
	if m.Count > 1 {
		b = append(b, m.Count)
		b = binary.AppendUvarint(b, uint64(m.Msg))
		b = append(b, m.Index)
	}
	return append(b, m.Chunk...)
}

// ParseStateFragment decodes a whole StateFragment packet; m.Chunk aliases
// b.
func ParseStateFragment(b []byte) (StateFragment, int, error) {
	var m StateFragment
	var err error
	if m.Seq, err = parseHeaderOf(b, TypeStateFragment); err != nil {
		return StateFragment{}, 0, err
	}
	i := HeaderLen
	if len(b)-i < 1 {
		return StateFragment{}, 0, ErrShort
	}
	m.Count = 1
	if b[i]&bodyMark == 0 {
		if len(b)-i < 2 { // the count and at least a byte of the number
			return StateFragment{}, 0, ErrShort
		}
		m.Count = b[i]
		if m.Count < 2 || m.Count > MaxFragments {
			return StateFragment{}, 0, ErrMalformed
		}
		msg, j, err := readUvarint(b, i+1)
		if err != nil {
			return StateFragment{}, 0, err
		}
		if len(b)-j < 2 { // the index and a chunk of at least one byte
			return StateFragment{}, 0, ErrShort
		}
		m.Msg, m.Index = uint32(msg), b[j]
		i = j + 1
		if msg > 1<<32-1 || m.Index >= m.Count {
			return StateFragment{}, 0, ErrMalformed
		}
	}
	if len(b)-i > MaxChunk {
		return StateFragment{}, 0, ErrMalformed
	}
	m.Chunk = b[i:len(b):len(b)]
	return m, len(b), nil
}

// Nack asks the host to resend the fragments of state body Msg whose bits
// are set in Missing (bit i: fragment i).
//
// Layout after the header: Msg uvarint, Missing u64 LE (not zero).
type Nack struct {
	Seq     uint16
	Msg     uint32
	Missing uint64
}

// Len is the encoded size in bytes.
func (m Nack) Len() int { return HeaderLen + uvarintLen(uint64(m.Msg)) + 8 }

// Append appends the encoded message to b (no allocation when b has room).
func (m Nack) Append(b []byte) []byte {
	b = appendHeader(b, TypeNack, m.Seq)
	b = binary.AppendUvarint(b, uint64(m.Msg))
	return binary.LittleEndian.AppendUint64(b, m.Missing)
}

// ParseNack decodes a whole Nack packet. Nothing missing is ErrMalformed.
func ParseNack(b []byte) (Nack, int, error) {
	var m Nack
	var err error
	if m.Seq, err = parseHeaderOf(b, TypeNack); err != nil {
		return Nack{}, 0, err
	}
	msg, i, err := readUvarint(b, HeaderLen)
	if err != nil {
		return Nack{}, 0, err
	}
	if len(b)-i < 8 {
		return Nack{}, 0, ErrShort
	}
	m.Msg, m.Missing = uint32(msg), binary.LittleEndian.Uint64(b[i:])
	if msg > 1<<32-1 || m.Missing == 0 {
		return Nack{}, 0, ErrMalformed
	}
	n, err := end(b, i+8)
	if err != nil {
		return Nack{}, 0, err
	}
	return m, n, nil
}
