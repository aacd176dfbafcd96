package wire

import "encoding/binary"

// Hello opens a client's connection to a host, and is retried until the
// host answers with a Welcome.
//
// Layout after the header: Settings u64 LE, Nonce u64 LE, then a flag byte:
// 0, or 1 followed by the TokenLen-byte resume token; then (authority
// protocol 3 on) Protocol u8, at least 3. A Hello that ends before it is
// protocol 2's (Protocol 2), so that a host can name an older client's
// protocol when it refuses it.
type Hello struct {
	Seq uint16
	// Settings is the hash of everything client and host must agree on;
	// a host refuses a mismatch (a WelcomeRefused with its own values).
	Settings uint64
	// Protocol is the client's authority protocol: 2, or 3 and on; 0
	// means AuthProtocol.
	Protocol uint8
	// Nonce is random; the Welcome echoes it, so a stale or forged answer
	// is told apart.
	Nonce uint64
	// Resume says Token is the resume token of an earlier connection.
	Resume bool
	Token  [TokenLen]byte
}

// Len is the encoded size in bytes.
func (m Hello) Len() int {
	n := HeaderLen + 17
	if m.Resume {
		n += TokenLen
	}
	if m.Protocol != 2 {
		n++
	}
	return n
}

// AuthProtocol is the authoritative protocol this package's layouts are
// (package authority's Protocol).
const AuthProtocol = 7

// Append appends the encoded message to b (no allocation when b has room);
// it appends nothing for Protocol 1.
func (m Hello) Append(b []byte) []byte {
	if m.Protocol == 0 {
		m.Protocol = AuthProtocol
	}
	if m.Protocol == 1 {
		return b
	}
	b = appendHeader(b, TypeHello, m.Seq)
	b = binary.LittleEndian.AppendUint64(b, m.Settings)
	b = binary.LittleEndian.AppendUint64(b, m.Nonce)
	if !m.Resume {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = append(b, m.Token[:]...)
	}
	if m.Protocol == 2 {
		return b
	}
	return append(b, m.Protocol)
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
	m.Protocol = 2
	if i < len(b) {
		if m.Protocol = b[i]; m.Protocol < 3 {
			return Hello{}, 0, ErrMalformed
		}
		i++
	}
	n, err := end(b, i)
	if err != nil {
		return Hello{}, 0, err
	}
	return m, n, nil
}
