package codec

import "encoding/binary"

// Hello opens a client's connection to a host, and is retried until the
// host answers with a Welcome.
//
// Layout after the header: Settings u64 LE, Nonce u64 LE, then a flag byte:
// 0, or 1 followed by the TokenLen-byte resume token.
type Hello struct {
	Seq uint16
	// Settings is the hash of everything client and host must agree on;
	// a host answers nothing to a mismatch.
	Settings uint64
	// Nonce is random; the Welcome echoes it, so a stale or forged answer
	// is told apart.
	Nonce uint64
	// Resume says Token is the resume token of an earlier connection.
	Resume bool
	Token  [TokenLen]byte
}

// Len is the encoded size in bytes.
func (m Hello) Len() int {
	if m.Resume {
		return HeaderLen + 17 + TokenLen
	}
	return HeaderLen + 17
}

// Append appends the encoded message to b (no allocation when b has room).
func (m Hello) Append(b []byte) []byte {
	b = appendHeader(b, TypeHello, m.Seq)
	b = binary.LittleEndian.AppendUint64(b, m.Settings)
	b = binary.LittleEndian.AppendUint64(b, m.Nonce)
	if !m.Resume {
		return append(b, 0)
	}
	b = append(b, 1)
	return append(b, m.Token[:]...)
}

// ParseHello decodes a whole Hello packet. A Hello without a token must
// say so with a zero flag; any other flag is ErrMalformed.
func ParseHello(b []byte) (Hello, int, error) {
	var m Hello
	var err error
	if m.Seq, err = parseHeaderOf(b, TypeHello); err != nil {
		return Hello{}, 0, err
	}
	i := HeaderLen
	if len(b)-i < 17 {
		return Hello{}, 0, ErrShort
	}
	m.Settings = binary.LittleEndian.Uint64(b[i:])
	m.Nonce = binary.LittleEndian.Uint64(b[i+8:])
	flag := b[i+16]
	i += 17
	switch flag {
	case 0:
	case 1:
		if len(b)-i < TokenLen {
			return Hello{}, 0, ErrShort
		}
		m.Resume = true
		copy(m.Token[:], b[i:])
		i += TokenLen
	default:
		return Hello{}, 0, ErrMalformed
	}
	n, err := end(b, i)
	if err != nil {
		return Hello{}, 0, err
	}
	return m, n, nil
}
