// Package tokenwire is the layout of a connect token, shared by the
// minting half (transport/quic/connecttoken, public: a game's backend
// mints) and the checking half (internal/tokenverify: only this module's
// transports check). connecttoken's doc.go states the layout and the
// attacks; this package only appends, parses and signs it.
package tokenwire

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
)

// Limits of the token's fields.
const (
	Version    = 1
	MaxRoom    = 32
	MaxAddress = 64
	KeySize    = 32
	MACSize    = sha256.Size
	fixedSize  = 1 + 8 + 8 + 8 + 1 + 1 + MACSize
	// MaxSize is the longest token, which fits an ALPN protocol name (255).
	MaxSize = fixedSize + MaxRoom + MaxAddress
	// MinSecret is the shortest secret minting and checking accept.
	MinSecret = 16
)

const (
	macLabel = "rollnet-connect/v1\n"
	keyLabel = "rollnet-connect-key/v1\n"
)

var (
	// ErrMalformed: the bytes are not a token of this version, or a field
	// is out of range (a room over 32 bytes, an expiry too far ahead).
	ErrMalformed = errors.New("connecttoken: malformed token")
	// ErrInvalid: a bad argument to Mint or NewVerifier (the wrapping
	// error names it).
	ErrInvalid = errors.New("connecttoken: invalid argument")
)

// AppendBody appends a token's fields before its MAC.
func AppendBody(b []byte, expires int64, client uint64, nonce [8]byte, room, address string) []byte {
	b = append(b, Version)
	b = binary.LittleEndian.AppendUint64(b, uint64(expires))
	b = binary.LittleEndian.AppendUint64(b, client)
	b = append(b, nonce[:]...)
	b = append(append(b, byte(len(room))), room...)
	return append(append(b, byte(len(address))), address...)
}

// BodySize is the length of a token's fields before its MAC.
func BodySize(room, address string) int { return fixedSize - MACSize + len(room) + len(address) }

// Sign appends the MAC of body to dst; m is HMAC-SHA256 under the secret.
func Sign(m hash.Hash, dst, body []byte) []byte {
	m.Reset()
	m.Write([]byte(macLabel))
	m.Write(body)
	return m.Sum(dst)
}

// DeriveKey writes the client key of the token whose MAC is mac.
func DeriveKey(m hash.Hash, mac []byte, key *[KeySize]byte) {
	m.Reset()
	m.Write([]byte(keyLabel))
	m.Write(mac)
	m.Sum(key[:0])
}

// Parsed is a token's fields, pointing into its bytes.
type Parsed struct {
	Expires       int64
	Client        uint64
	Room, Address []byte
	Body, MAC     []byte
}

// Parse reads a token's layout; it does not check the MAC.
func Parse(b []byte) (p Parsed, err error) {
	if len(b) < fixedSize || len(b) > MaxSize {
		return p, fmt.Errorf("%w: %d bytes", ErrMalformed, len(b))
	}
	if b[0] != Version {
		return p, fmt.Errorf("%w: version %d", ErrMalformed, b[0])
	}
	p.Expires = int64(binary.LittleEndian.Uint64(b[1:]))
	p.Client = binary.LittleEndian.Uint64(b[9:])
	off := 25
	field := func(limit int) ([]byte, bool) {
		if off >= len(b) {
			return nil, false
		}
		n := int(b[off])
		if n > limit || off+1+n > len(b) {
			return nil, false
		}
		f := b[off+1 : off+1+n]
		off += 1 + n
		return f, true
	}
	var ok bool
	if p.Room, ok = field(MaxRoom); !ok {
		return p, fmt.Errorf("%w: room", ErrMalformed)
	}
	if p.Address, ok = field(MaxAddress); !ok || len(p.Address) == 0 {
		return p, fmt.Errorf("%w: address", ErrMalformed)
	}
	if len(b)-off != MACSize {
		return p, fmt.Errorf("%w: %d bytes where the MAC goes", ErrMalformed, len(b)-off)
	}
	p.Body, p.MAC = b[:off], b[off:]
	return p, nil
}
