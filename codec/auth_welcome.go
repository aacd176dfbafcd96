package codec

import "encoding/binary"

// WelcomeKind is what a host answers to a Hello.
type WelcomeKind uint8

// The answers.
const (
	// WelcomeSync is the INITIAL_SYNC: a fresh player slot and resume
	// token; the whole state at Frame follows as states do.
	WelcomeSync WelcomeKind = iota + 1
	// WelcomeResume is RESUME_ACCEPT: the token was valid, the client's
	// world and slots go on.
	WelcomeResume
	// WelcomeReject is RESUME_REJECT: the token was unknown or expired; an
	// INITIAL_SYNC follows.
	WelcomeReject
)

// Welcome is the host's answer to a Hello: one per connection (sent a few
// times against loss).
//
// Layout after the header: Kind u8, Nonce u64 LE; then, for WelcomeSync and
// WelcomeResume only: Token (TokenLen bytes), First u8, Slots u8 (at least
// 1, First+Slots at most MaxAuthPlayers; protocol 1: MaxPlayers), Frame as uvarint(uint32(Frame)+1).
type Welcome struct {
	Seq   uint16
	Kind  WelcomeKind
	Nonce uint64 // the Hello's
	Token [TokenLen]byte
	// First and Slots are the client's player slots: First..First+Slots-1.
	First, Slots uint8
	// Frame is the host's frame when it answered.
	Frame int32
}

func (m Welcome) hasSlots() bool { return m.Kind == WelcomeSync || m.Kind == WelcomeResume }

// Len is the encoded size in bytes.
func (m Welcome) Len() int {
	n := HeaderLen + 9
	if m.hasSlots() {
		n += TokenLen + 2 + frameLen(m.Frame)
	}
	return n
}

// Append appends the encoded message to b (no allocation when b has room).
func (m Welcome) Append(b []byte) []byte {
	b = appendHeader(b, TypeWelcome, m.Seq)
	b = append(b, byte(m.Kind))
	b = binary.LittleEndian.AppendUint64(b, m.Nonce)
	if !m.hasSlots() {
		return b
	}
	b = append(b, m.Token[:]...)
	b = append(b, m.First, m.Slots)
	return appendFrame(b, m.Frame)
}

// ParseWelcome decodes a whole Welcome packet. An unknown kind, no slots,
// slots past MaxAuthPlayers or a negative frame are ErrMalformed.
func ParseWelcome(b []byte) (Welcome, int, error) {
	var m Welcome
	var err error
	if m.Seq, err = parseHeaderOf(b, TypeWelcome); err != nil {
		return Welcome{}, 0, err
	}
	i := HeaderLen
	if len(b)-i < 9 {
		return Welcome{}, 0, ErrShort
	}
	m.Kind = WelcomeKind(b[i])
	m.Nonce = binary.LittleEndian.Uint64(b[i+1:])
	i += 9
	switch m.Kind {
	case WelcomeReject:
	case WelcomeSync, WelcomeResume:
		if len(b)-i < TokenLen+2 {
			return Welcome{}, 0, ErrShort
		}
		copy(m.Token[:], b[i:])
		i += TokenLen
		m.First, m.Slots = b[i], b[i+1]
		i += 2
		if m.Slots == 0 || int(m.First)+int(m.Slots) > MaxAuthPlayers {
			return Welcome{}, 0, ErrMalformed
		}
		if m.Frame, i, err = readFrame(b, i); err != nil {
			return Welcome{}, 0, err
		}
		if m.Frame < 0 {
			return Welcome{}, 0, ErrMalformed
		}
	default:
		return Welcome{}, 0, ErrMalformed
	}
	n, err := end(b, i)
	if err != nil {
		return Welcome{}, 0, err
	}
	return m, n, nil
}
