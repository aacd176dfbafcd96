package wire

import (
	"encoding/binary"
	"math"
)

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
	// WelcomeRefused (authority protocol 3) refuses a Hello whose
	// settings hash is not the host's: it carries the host's settings, so
	// the client can say what differs. No slot is held.
	WelcomeRefused
)

// AuthSettings are what an authoritative host and its clients must agree
// on, whose hash a Hello carries: a WelcomeRefused sends the host's.
//
// Layout: Protocol u8, Players uvarint (1..MaxAuthPlayers), StateSize
// uvarint (at least 1), InputSize u8 (1..MaxInputSize), FrameRate uvarint
// (at least 1), Game u64 LE.
type AuthSettings struct {
	Protocol                                 uint8
	Players, StateSize, InputSize, FrameRate int
	// Game is the game's own settings (rollnet.NetConfig.Settings).
	Game uint64
}

func (s AuthSettings) valid() bool {
	return s.Players >= 1 && s.Players <= MaxAuthPlayers && s.StateSize >= 1 && s.StateSize <= math.MaxInt32 &&
		s.InputSize >= 1 && s.InputSize <= MaxInputSize && s.FrameRate >= 1 && s.FrameRate <= math.MaxInt32
}

func (s AuthSettings) len() int {
	return 1 + uvarintLen(uint64(s.Players)) + uvarintLen(uint64(s.StateSize)) + 1 + uvarintLen(uint64(s.FrameRate)) + 8
}

func (s AuthSettings) append(b []byte) []byte {
	b = append(b, s.Protocol)
	b = binary.AppendUvarint(b, uint64(s.Players))
	b = binary.AppendUvarint(b, uint64(s.StateSize))
	b = append(b, byte(s.InputSize))
	b = binary.AppendUvarint(b, uint64(s.FrameRate))
	return binary.LittleEndian.AppendUint64(b, s.Game)
}

func parseAuthSettings(b []byte, i int) (AuthSettings, int, error) {
	var s AuthSettings
	if len(b)-i < 1 {
		return s, i, ErrShort
	}
	s.Protocol = b[i]
	v, i, err := readUvarint(b, i+1)
	if err != nil {
		return s, i, err
	}
	w, i, err := readUvarint(b, i)
	if err != nil {
		return s, i, err
	}
	if len(b)-i < 1 {
		return s, i, ErrShort
	}
	in := b[i]
	r, i, err := readUvarint(b, i+1)
	if err != nil {
		return s, i, err
	}
	if len(b)-i < 8 {
		return s, i, ErrShort
	}
	if v > MaxAuthPlayers || w > math.MaxInt32 || r > math.MaxInt32 {
		return s, i, ErrMalformed
	}
	s.Players, s.StateSize, s.InputSize, s.FrameRate = int(v), int(w), int(in), int(r)
	s.Game = binary.LittleEndian.Uint64(b[i:])
	if !s.valid() {
		return s, i, ErrMalformed
	}
	return s, i + 8, nil
}

// Welcome is the host's answer to a Hello: one per connection (sent a few
// times against loss).
//
// Layout after the header: Kind u8, Nonce u64 LE; then, for WelcomeSync and
// WelcomeResume only: Token (TokenLen bytes), First u8, Slots u8 (at least
// 1, First+Slots at most MaxAuthPlayers; protocol 1: MaxPlayers), Frame as
// uvarint(uint32(Frame)+1); for WelcomeRefused only: the host's
// AuthSettings.
type Welcome struct {
	Seq   uint16
	Kind  WelcomeKind
	Nonce uint64 // the Hello's
	Token [TokenLen]byte
	// First and Slots are the client's player slots: First..First+Slots-1.
	First, Slots uint8
	// Frame is the host's frame when it answered.
	Frame int32
	// Host is the host's settings (WelcomeRefused only).
	Host AuthSettings
}

func (m Welcome) hasSlots() bool { return m.Kind == WelcomeSync || m.Kind == WelcomeResume }

// Len is the encoded size in bytes.
func (m Welcome) Len() int {
	n := HeaderLen + 9
	if m.hasSlots() {
		n += TokenLen + 2 + frameLen(m.Frame)
	}
	if m.Kind == WelcomeRefused {
		n += m.Host.len()
	}
	return n
}

// Append appends the encoded message to b (no allocation when b has room);
// it appends nothing for a WelcomeRefused whose settings would not parse.
func (m Welcome) Append(b []byte) []byte {
	if m.Kind == WelcomeRefused && !m.Host.valid() {
		return b
	}
	b = appendHeader(b, TypeWelcome, m.Seq)
	b = append(b, byte(m.Kind))
	b = binary.LittleEndian.AppendUint64(b, m.Nonce)
	if m.Kind == WelcomeRefused {
		return m.Host.append(b)
	}
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
	case WelcomeRefused:
		if m.Host, i, err = parseAuthSettings(b, i); err != nil {
			return Welcome{}, 0, err
		}
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
