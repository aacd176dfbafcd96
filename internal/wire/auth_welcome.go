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
	// WelcomeHold (authority protocol 5) is not an answer but the host's
	// word on the match, sent on an admitted connection (with its Hello's
	// nonce) every tick while it holds the match for a player who is away
	// (authority.HostConfig.Absence), and while it resumes: every peer
	// stops at Stop, and may simulate the frames before Until. (The
	// header's sixteen types are all taken: the hold rides as a Welcome,
	// which a client already reads at any time.)
	WelcomeHold
)

// MaxHoldPlayers is the most players a WelcomeHold names.
const MaxHoldPlayers = 8

// MaxLease bounds how many frames past its own a state's lease (StateBody
// Lease), or past its Stop a hold's Until, may reach.
const MaxLease = 1 << 12

// HoldOutcome is what became of a player a WelcomeHold names.
type HoldOutcome uint8

// The outcomes.
const (
	HoldAwaited HoldOutcome = iota // away: the match waits for it
	HoldBack                       // it came back: the match resumes
	HoldDropped                    // its grace passed: the match resumes without it
	holdOutcomes
)

// HoldPlayer is a player a WelcomeHold names, and its outcome.
type HoldPlayer struct {
	Player  uint8
	Outcome HoldOutcome
}

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
// AuthSettings; for WelcomeHold only: Flags u8 (1: Forfeit; other bits
// zero), Stop uvarint (>= 0), Until-Stop uvarint (0..MaxLease), Age uvarint
// (milliseconds, < 2^32), N u8 (0..MaxHoldPlayers), then N times Player u8,
// Outcome u8 (a HoldOutcome).
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
	// WelcomeHold only: Forfeit says the match stops at Stop for good; a
	// client simulates no frame at or past Until (Until == Stop while the
	// host holds, past it once the host resumes); Age is how long the
	// hold has lasted, in milliseconds; Players[:N] are the players it
	// waits for (or waited for: their outcome).
	Forfeit     bool
	Stop, Until int32
	Age         uint32
	N           uint8
	Players     [MaxHoldPlayers]HoldPlayer
}

func (m Welcome) holdValid() bool {
	if m.Stop < 0 || m.Until < m.Stop || int64(m.Until)-int64(m.Stop) > MaxLease || m.N > MaxHoldPlayers {
		return false
	}
	for _, p := range m.Players[:m.N] {
		if p.Outcome >= holdOutcomes {
			return false
		}
	}
	return true
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
	if m.Kind == WelcomeHold {
		n += 1 + uvarintLen(uint64(m.Stop)) + uvarintLen(uint64(m.Until-m.Stop)) + uvarintLen(uint64(m.Age)) + 1 + 2*int(m.N)
	}
	return n
}

// Append appends the encoded message to b (no allocation when b has room);
// it appends nothing for a WelcomeRefused whose settings would not parse,
// or a WelcomeHold whose fields are out of range.
func (m Welcome) Append(b []byte) []byte {
	if (m.Kind == WelcomeRefused && !m.Host.valid()) || (m.Kind == WelcomeHold && !m.holdValid()) {
		return b
	}
	b = appendHeader(b, TypeWelcome, m.Seq)
	b = append(b, byte(m.Kind))
	b = binary.LittleEndian.AppendUint64(b, m.Nonce)
	if m.Kind == WelcomeRefused {
		return m.Host.append(b)
	}
	if m.Kind == WelcomeHold {
		flags := byte(0)
		if m.Forfeit {
			flags = 1
		}
		b = append(b, flags)
		b = binary.AppendUvarint(b, uint64(m.Stop))
		b = binary.AppendUvarint(b, uint64(m.Until-m.Stop))
		b = binary.AppendUvarint(b, uint64(m.Age))
		b = append(b, m.N)
		for _, p := range m.Players[:m.N] {
			b = append(b, p.Player, byte(p.Outcome))
		}
		return b
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
	case WelcomeHold:
		if i, err = m.parseHold(b, i); err != nil {
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

// parseHold reads a WelcomeHold's fields from b[i:].
func (m *Welcome) parseHold(b []byte, i int) (int, error) {
	if len(b)-i < 1 {
		return i, ErrShort
	}
	flags := b[i]
	if flags > 1 {
		return i, ErrMalformed
	}
	m.Forfeit = flags == 1
	stop, i, err := readUvarint(b, i+1)
	if err != nil {
		return i, err
	}
	until, i, err := readUvarint(b, i)
	if err != nil {
		return i, err
	}
	age, i, err := readUvarint(b, i)
	if err != nil {
		return i, err
	}
	if stop > math.MaxInt32 || until > MaxLease || stop+until > math.MaxInt32 || age > math.MaxUint32 {
		return i, ErrMalformed
	}
	m.Stop, m.Until, m.Age = int32(stop), int32(stop+until), uint32(age)
	if len(b)-i < 1 {
		return i, ErrShort
	}
	m.N = b[i]
	i++
	if m.N > MaxHoldPlayers {
		return i, ErrMalformed
	}
	if len(b)-i < 2*int(m.N) {
		return i, ErrShort
	}
	for k := range int(m.N) {
		m.Players[k] = HoldPlayer{Player: b[i], Outcome: HoldOutcome(b[i+1])}
		if m.Players[k].Outcome >= holdOutcomes {
			return i, ErrMalformed
		}
		i += 2
	}
	return i, nil
}
