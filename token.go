package rollnet

// RejoinToken is what a player needs, besides its match's settings, to
// come back into its match after it dropped, in either mode. Keep it
// secret: it lets its holder take the player's place. The zero value is
// no token.
//
// In a P2P match (package p2p) Match is the match id, the same on every
// peer, and Secret this player's rejoin secret, which never leaves its
// process. In the authoritative mode (package authority) Secret is the
// token the host gave the client, and Match is 0.
type RejoinToken struct {
	Match  uint64
	Secret [16]byte
}
