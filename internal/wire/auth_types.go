package wire

// The server-authoritative messages (package authority's protocol). They
// share the header and the rules of the P2P messages: canonical, whole
// packets, trailing bytes refused, no allocation:
//
//	Hello          client: settings hash, nonce, optional resume token
//	Welcome        the host's one answer: INITIAL_SYNC, RESUME_ACCEPT or
//	               RESUME_REJECT
//	AuthInput      a client's unacknowledged inputs, or a frame marker
//	StateFragment  a piece of a StateBody: a host state XOR the acknowledged
//	               baseline, range coded, with the inputs at its frame
//	               and the host's rate advice
//	Nack           fragments to resend
const (
	// TypeHello opens a client's connection to a host (Hello).
	TypeHello Type = TypeRejoin + 1 + iota
	// TypeWelcome is the host's one answer to a Hello (Welcome).
	TypeWelcome
	// TypeAuthInput carries a client's inputs, or a frame marker (AuthInput).
	TypeAuthInput
	// TypeStateFragment carries one fragment of a host state (StateFragment).
	TypeStateFragment
	// TypeNack asks the host to resend fragments of a state (Nack).
	TypeNack

	// typeLast is the last type: the header has four bits for it.
	typeLast = TypeNack
)

// Limits of the authoritative messages.
const (
	// MaxFragments is the most fragments one state may be cut into.
	MaxFragments = 64
	// MaxChunk is the most state bytes one fragment carries: a fragment of
	// MaxChunk bytes with the largest message number fills MaxPacket.
	MaxChunk = MaxPacket - HeaderLen - 5 - 2
	// MaxStateBody is the largest encoded state body: MaxFragments full
	// chunks.
	MaxStateBody = MaxFragments * MaxChunk
	// TokenLen is the length of a resume token, 128 bits.
	TokenLen = 16
	// MaxAuthPlayers is the most players an authoritative match holds
	// (a Welcome's slots, a StateBody's inputs).
	MaxAuthPlayers = 256
)

var authTypeNames = [...]string{"Hello", "Welcome", "AuthInput", "StateFragment", "Nack"}

func authTypeName(t Type) string {
	if t >= TypeHello && t <= typeLast {
		return authTypeNames[t-TypeHello]
	}
	return "Unknown"
}
