package session

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"

	"github.com/rollnet/rollnet/codec"
)

// identity is a player peer's identity in its match (see the top of
// p2p_rejoin.go): its rejoin secret, its share of the match id and, once
// every peer's share arrived, the match id. The zero value is no identity.
type identity struct {
	secret [codec.SecretLen]byte
	share  uint64
	match  uint64
	known  bool // match is set
}

// newIdentity draws a fresh secret and share from rand.
func newIdentity(rand func() uint64) identity {
	var id identity
	binary.LittleEndian.PutUint64(id.secret[:8], rand())
	binary.LittleEndian.PutUint64(id.secret[8:], rand())
	id.share = rand()
	return id
}

// token returns the RejoinToken of this identity once the match id is
// known.
func (id *identity) token() (RejoinToken, bool) {
	if !id.known {
		return RejoinToken{}, false
	}
	return RejoinToken{Match: id.match, Secret: id.secret}, true
}

// proves reports, in constant time, whether m carries this match's id and
// a secret whose SHA-256 is hash.
func (id *identity) proves(hash *[sha256.Size]byte, m *codec.Rejoin) bool {
	h := sha256.Sum256(m.Secret[:])
	same := subtle.ConstantTimeCompare(h[:], hash[:]) &
		subtle.ConstantTimeEq(int32(m.Match>>32), int32(id.match>>32)) &
		subtle.ConstantTimeEq(int32(m.Match), int32(id.match))
	return same == 1
}

// request is the rejoin request this identity sends for players.
func (id *identity) request(players uint64) codec.Rejoin {
	return codec.Rejoin{Kind: codec.RejoinRequest, Players: players, Match: id.match, Secret: id.secret}
}

// sha256Of is the hash a peer keeps of another's secret.
func sha256Of(secret [codec.SecretLen]byte) [sha256.Size]byte { return sha256.Sum256(secret[:]) }
