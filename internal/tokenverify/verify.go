// Package tokenverify checks connect tokens on a host: the half of
// transport/quic/connecttoken that only this module's transports
// (transport/quic, transport/udp, through authority/dedicated) need.
// connecttoken's doc.go states the token, the attacks and what a
// Verifier promises against each.
//
// A Verifier checks, in this order and without keeping anything for a
// token that fails: the layout (connecttoken.ErrMalformed), the MAC under
// its secret (ErrForged), the host address it was minted for
// (ErrWrongAddress), the room when it serves one (ErrWrongRoom), the
// expiry (ErrExpired, with a bound on how far ahead a token may expire),
// and single use (ErrReplayed): a token is presented by any number of
// connections and redeemed by the first that shows the key (ErrWrongKey
// otherwise). Each refusal is counted. Used tokens are remembered until
// they expire, at most Config.MaxRemembered of them; past that new tokens
// are refused (ErrFull) rather than forgotten early.
package tokenverify

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rollnet/rollnet/internal/tokenwire"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// The refusals of Check and Redeem, beside connecttoken.ErrMalformed (and
// connecttoken.ErrInvalid from NewVerifier).
var (
	// ErrForged: the MAC does not match under the host's secret.
	ErrForged = errors.New("connecttoken: token not signed by this backend")
	// ErrWrongAddress: the token was minted for another host address.
	ErrWrongAddress = errors.New("connecttoken: token minted for another host")
	// ErrWrongRoom: the token names a room this host does not serve.
	ErrWrongRoom = errors.New("connecttoken: token minted for another room")
	// ErrExpired: the token's expiry has passed.
	ErrExpired = errors.New("connecttoken: token expired")
	// ErrReplayed: the token was redeemed already (by a connection that
	// showed its key).
	ErrReplayed = errors.New("connecttoken: token already used")
	// ErrWrongKey: the client key shown does not belong to the token.
	ErrWrongKey = errors.New("connecttoken: wrong client key")
	// ErrFull: the Verifier remembers Config.MaxRemembered unexpired tokens.
	ErrFull = errors.New("connecttoken: too many tokens in use")
)

const (
	macSize    = tokenwire.MACSize
	KeySize    = tokenwire.KeySize
	maxAddress = tokenwire.MaxAddress
	minSecret  = tokenwire.MinSecret
)

var (
	errMalformed = connecttoken.ErrMalformed
	errInvalid   = connecttoken.ErrInvalid
)

// Claims is what a checked token vouches for.
type Claims = connecttoken.Claims

// Config configures a Verifier; the zero value of each field means its
// default.
type Config struct {
	// Room, when set, is the only room admitted (ErrWrongRoom otherwise).
	Room string
	// MaxLifetime bounds how far ahead of now a token may expire, and so
	// how long a used one is remembered. 0 means 10 minutes.
	MaxLifetime time.Duration
	// MaxRemembered bounds the unexpired tokens remembered (presented or
	// used). 0 means 4096.
	MaxRemembered int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Stats counts the Verifier's refusals and admissions. All only grow.
// Reserved counts presentations Check accepted (several may be of one
// token), Redeemed tokens taken, Released presentations ended unredeemed.
type Stats struct {
	Malformed, Forged, WrongAddress, WrongRoom, Expired, Replayed, WrongKey, Full uint64
	Reserved, Redeemed, Released                                                  uint64
}

// Verifier checks tokens for one host. It is safe for concurrent use.
type Verifier struct {
	secret  []byte
	address string
	cfg     Config
	macs    sync.Pool // hash.Hash for secret

	mu   sync.Mutex
	seen map[[macSize]byte]entry

	malformed, forged, wrongAddress, wrongRoom, expired atomic.Uint64
	replayed, wrongKey, full                            atomic.Uint64
	reserved, redeemed, released                        atomic.Uint64
}

// entry is a token remembered: presented by connections still open, or
// redeemed.
type entry struct {
	expires   int64
	presented int // Check's tickets not yet released
	redeemed  bool
}

// Ticket is one presentation of a token, by Check, to Redeem or Release.
type Ticket struct {
	mac     [macSize]byte
	Claims  Claims
	expires int64
}

// NewVerifier returns a Verifier for the host at address (exactly as the
// backend names it in Claims.Address) that shares secret with the backend.
func NewVerifier(secret []byte, address string, cfg Config) (*Verifier, error) {
	if len(secret) < minSecret {
		return nil, fmt.Errorf("%w: secret of %d bytes, under %d", errInvalid, len(secret), minSecret)
	}
	if address == "" || len(address) > maxAddress {
		return nil, fmt.Errorf("%w: address of %d bytes (1 to %d)", errInvalid, len(address), maxAddress)
	}
	if cfg.MaxLifetime < 0 || cfg.MaxRemembered < 0 {
		return nil, fmt.Errorf("%w: negative MaxLifetime or MaxRemembered", errInvalid)
	}
	if cfg.MaxLifetime == 0 {
		cfg.MaxLifetime = 10 * time.Minute
	}
	if cfg.MaxRemembered == 0 {
		cfg.MaxRemembered = 4096
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	v := &Verifier{
		secret:  append([]byte(nil), secret...),
		address: address,
		cfg:     cfg,
		seen:    make(map[[macSize]byte]entry),
	}
	v.macs.New = func() any { return hmac.New(sha256.New, v.secret) }
	return v, nil
}

// Check verifies token for the connection presenting it, and notes the
// presentation until Release. It takes nothing from other connections
// that present the same token: whoever copied it off the wire may present
// it too, and the first presentation to Redeem with the key wins. It
// fails, counting why, with errMalformed, ErrForged, ErrWrongAddress,
// ErrWrongRoom, ErrExpired, ErrReplayed (redeemed already) or ErrFull.
func (v *Verifier) Check(token []byte) (Ticket, error) {
	p, err := tokenwire.Parse(token)
	if err != nil {
		v.malformed.Add(1)
		return Ticket{}, err
	}
	m := v.macs.Get().(hash.Hash)
	var sum [macSize]byte
	tokenwire.Sign(m, sum[:0], p.Body)
	v.macs.Put(m)
	if !hmac.Equal(sum[:], p.MAC) {
		v.forged.Add(1)
		return Ticket{}, ErrForged
	}
	if string(p.Address) != v.address {
		v.wrongAddress.Add(1)
		return Ticket{}, fmt.Errorf("%w: minted for %q, this host is %q", ErrWrongAddress, p.Address, v.address)
	}
	if v.cfg.Room != "" && string(p.Room) != v.cfg.Room {
		v.wrongRoom.Add(1)
		return Ticket{}, ErrWrongRoom
	}
	now := v.cfg.Now().Unix()
	if p.Expires <= now {
		v.expired.Add(1)
		return Ticket{}, ErrExpired
	}
	if p.Expires > now+int64(v.cfg.MaxLifetime/time.Second) {
		v.malformed.Add(1)
		return Ticket{}, fmt.Errorf("%w: expires more than %v ahead", errMalformed, v.cfg.MaxLifetime)
	}
	v.mu.Lock()
	if e, ok := v.seen[sum]; ok {
		if e.redeemed {
			v.mu.Unlock()
			v.replayed.Add(1)
			return Ticket{}, ErrReplayed
		}
		e.presented++
		v.seen[sum] = e
	} else if len(v.seen) >= v.cfg.MaxRemembered {
		for k, e := range v.seen {
			if e.expires <= now {
				delete(v.seen, k)
			}
		}
		if len(v.seen) >= v.cfg.MaxRemembered {
			v.mu.Unlock()
			v.full.Add(1)
			return Ticket{}, ErrFull
		}
		v.seen[sum] = entry{expires: p.Expires, presented: 1}
	} else {
		v.seen[sum] = entry{expires: p.Expires, presented: 1}
	}
	v.mu.Unlock()
	v.reserved.Add(1)
	return Ticket{
		mac:     sum,
		expires: p.Expires,
		Claims:  Claims{Room: string(p.Room), Client: p.Client, Expires: time.Unix(p.Expires, 0), Address: v.address},
	}, nil
}

// Redeem uses a presented token for good if key is its client key
// (ErrWrongKey otherwise, and the presentation stands until Release), and
// if no other presentation redeemed it first (ErrReplayed).
func (v *Verifier) Redeem(t Ticket, key [KeySize]byte) error {
	m := v.macs.Get().(hash.Hash)
	var want [KeySize]byte
	tokenwire.DeriveKey(m, t.mac[:], &want)
	v.macs.Put(m)
	if !hmac.Equal(want[:], key[:]) {
		v.wrongKey.Add(1)
		return ErrWrongKey
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	e, ok := v.seen[t.mac]
	if !ok || e.redeemed {
		v.replayed.Add(1)
		return ErrReplayed
	}
	e.redeemed = true
	v.seen[t.mac] = e
	v.redeemed.Add(1)
	return nil
}

// ClientKey is the client key of a presented token, which the host
// derives from the token and its secret as the backend did: a transport
// that cannot take the key from the client inside its own encryption
// (transport/udp, whose packets are sealed with keys derived from it)
// uses it to check the client's proof, then Redeem.
func (v *Verifier) ClientKey(t Ticket) [KeySize]byte {
	m := v.macs.Get().(hash.Hash)
	var k [KeySize]byte
	tokenwire.DeriveKey(m, t.mac[:], &k)
	v.macs.Put(m)
	return k
}

// Release ends a presentation that was not redeemed (its connection
// ended first): a token no connection presents any more, and none
// redeemed, is forgotten. A redeemed token stays used.
func (v *Verifier) Release(t Ticket) {
	v.mu.Lock()
	defer v.mu.Unlock()
	e, ok := v.seen[t.mac]
	if !ok || e.redeemed {
		return
	}
	v.released.Add(1)
	if e.presented--; e.presented <= 0 {
		delete(v.seen, t.mac)
		return
	}
	v.seen[t.mac] = e
}

// Stats returns the counters.
func (v *Verifier) Stats() Stats {
	return Stats{
		Malformed: v.malformed.Load(), Forged: v.forged.Load(), WrongAddress: v.wrongAddress.Load(),
		WrongRoom: v.wrongRoom.Load(), Expired: v.expired.Load(), Replayed: v.replayed.Load(),
		WrongKey: v.wrongKey.Load(), Full: v.full.Load(),
		Reserved: v.reserved.Load(), Redeemed: v.redeemed.Load(), Released: v.released.Load(),
	}
}
