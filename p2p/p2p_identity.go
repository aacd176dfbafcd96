package p2p

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
)

// identity is a player peer's identity in its match (see the top of
// p2p_rejoin.go): its rejoin secret, its share of the match id and, once
// every peer's share arrived, the match id. The zero value is no identity.
//
// The secret itself never leaves this peer (protocol 4). Each other peer
// gets its own key, keyFor(its players): an HMAC-SHA256 of the secret, so
// what a fellow player was told proves nothing to a third one, and no key
// tells anything of the secret or of another key. A joiner, whose peers
// have no key of it yet, asks with joinProof instead (a fixed HMAC of the
// secret, the one the sponsor's At relays), which stops counting once its
// keys (its Tokens) arrived.
type identity struct {
	secret  [wire.SecretLen]byte
	share   uint64
	match   uint64
	known   bool // match is set
	joining bool // a joiner (Config.Join): it asks with joinProof
}

// newIdentity draws a fresh secret and share from rand.
func newIdentity(rand func() uint64) identity {
	var id identity
	binary.LittleEndian.PutUint64(id.secret[:8], rand())
	binary.LittleEndian.PutUint64(id.secret[8:], rand())
	id.share = rand()
	return id
}

// token returns the rejoin token of this identity once the match id is
// known.
func (id *identity) token() (rollnet.RejoinToken, bool) {
	if !id.known {
		return rollnet.RejoinToken{}, false
	}
	return rollnet.RejoinToken{Match: id.match, Secret: id.secret}, true
}

// Labels of the keys derived from a secret.
const (
	labelPair = "rollnet p2p rejoin key v4"
	labelJoin = "rollnet p2p join proof v4"
)

// derive is the first SecretLen bytes of HMAC-SHA256(secret, label ||
// mask LE). It allocates: keys are derived once, when a session starts.
func (id *identity) derive(label string, mask uint64) [wire.SecretLen]byte {
	h := hmac.New(sha256.New, id.secret[:])
	h.Write([]byte(label))
	h.Write(binary.LittleEndian.AppendUint64(nil, mask))
	var k [wire.SecretLen]byte
	copy(k[:], h.Sum(nil))
	return k
}

// keyFor is the key this identity gives the peer of the players of mask
// (its Token) and proves itself with to that peer alone.
func (id *identity) keyFor(mask uint64) [wire.SecretLen]byte { return id.derive(labelPair, mask) }

// joinProof is what a joiner asks every peer with.
func (id *identity) joinProof() [wire.SecretLen]byte { return id.derive(labelJoin, 0) }

// proves reports, in constant time, whether m carries this match's id and
// a key whose SHA-256 is hash.
func (id *identity) proves(hash *[sha256.Size]byte, m *wire.Rejoin) bool {
	h := sha256.Sum256(m.Secret[:])
	same := subtle.ConstantTimeCompare(h[:], hash[:]) &
		subtle.ConstantTimeEq(int32(m.Match>>32), int32(id.match>>32)) &
		subtle.ConstantTimeEq(int32(m.Match), int32(id.match))
	return same == 1
}

// request is the rejoin request this identity sends for players to the
// peer whose proof is key.
func (id *identity) request(players uint64, key [wire.SecretLen]byte) wire.Rejoin {
	return wire.Rejoin{Kind: wire.RejoinRequest, Players: players, Match: id.match, Secret: key}
}

// sha256Of is the hash a peer keeps of another's key.
func sha256Of(secret [wire.SecretLen]byte) [sha256.Size]byte { return sha256.Sum256(secret[:]) }
