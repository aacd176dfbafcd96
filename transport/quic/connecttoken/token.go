package connecttoken

import (
	"crypto/hmac"
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rollnet/rollnet/internal/tokenwire"
)

var cryptoRand = crand.Reader

// Limits of the token's fields.
const (
	KeySize = tokenwire.KeySize // a Grant's client key
	// MaxSize is the longest token, which fits an ALPN protocol name (255).
	MaxSize = tokenwire.MaxSize
	// MinSecret is the shortest secret Mint and a host accept.
	MinSecret = tokenwire.MinSecret
)

// Claims are what the backend vouches for.
type Claims struct {
	Room    string    // the match the client may join, at most 32 bytes
	Client  uint64    // the backend's id for the player
	Expires time.Time // kept to the second
	Address string    // the host's address as it names itself (its Config.Address), 1 to 64 bytes
}

// Grant is what the backend hands a client: Token to present, Key to
// prove it is the client's, and the Claims to read.
type Grant struct {
	Token  []byte
	Key    [KeySize]byte
	Claims Claims
}

// Mint makes a grant for c, signed with secret (at least MinSecret bytes,
// shared by the backend and the host); rand supplies the nonce (nil means
// crypto/rand).
func Mint(secret []byte, c Claims, rand io.Reader) (Grant, error) {
	if len(secret) < MinSecret {
		return Grant{}, fmt.Errorf("%w: secret of %d bytes, under %d", ErrInvalid, len(secret), MinSecret)
	}
	if len(c.Room) > tokenwire.MaxRoom || len(c.Address) > tokenwire.MaxAddress || c.Address == "" {
		return Grant{}, fmt.Errorf("%w: room of %d bytes (max %d) or address of %d (1 to %d)", ErrInvalid, len(c.Room), tokenwire.MaxRoom, len(c.Address), tokenwire.MaxAddress)
	}
	if rand == nil {
		rand = cryptoRand
	}
	var nonce [8]byte
	if _, err := io.ReadFull(rand, nonce[:]); err != nil {
		return Grant{}, fmt.Errorf("connecttoken: nonce: %w", err)
	}
	b := make([]byte, 0, tokenwire.BodySize(c.Room, c.Address)+tokenwire.MACSize)
	b = tokenwire.AppendBody(b, c.Expires.Unix(), c.Client, nonce, c.Room, c.Address)
	m := hmac.New(sha256.New, secret)
	b = tokenwire.Sign(m, b, b)
	g := Grant{Token: b, Claims: c}
	g.Claims.Expires = time.Unix(c.Expires.Unix(), 0)
	tokenwire.DeriveKey(m, b[len(b)-tokenwire.MACSize:], &g.Key)
	return g, nil
}

// String is the grant in one line for a flag or a JSON field: the token
// and the key, unpadded base64url, joined by a dot.
func (g Grant) String() string {
	return base64.RawURLEncoding.EncodeToString(g.Token) + "." + base64.RawURLEncoding.EncodeToString(g.Key[:])
}

// ParseGrant reads a grant written by String, with its claims (unverified:
// only the host can check the MAC).
func ParseGrant(s string) (Grant, error) {
	tok, key, ok := strings.Cut(s, ".")
	if !ok {
		return Grant{}, fmt.Errorf("%w: no key after the token", ErrMalformed)
	}
	var g Grant
	var err error
	if g.Token, err = base64.RawURLEncoding.DecodeString(tok); err != nil {
		return Grant{}, fmt.Errorf("%w: token: %w", ErrMalformed, err)
	}
	k, err := base64.RawURLEncoding.DecodeString(key)
	if err != nil || len(k) != KeySize {
		return Grant{}, fmt.Errorf("%w: key", ErrMalformed)
	}
	copy(g.Key[:], k)
	p, err := tokenwire.Parse(g.Token)
	if err != nil {
		return Grant{}, err
	}
	g.Claims = Claims{Room: string(p.Room), Client: p.Client, Expires: time.Unix(p.Expires, 0), Address: string(p.Address)}
	return g, nil
}
