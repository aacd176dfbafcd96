package connecttoken

import (
	"crypto/hmac"
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

var cryptoRand = crand.Reader

// Limits of the token's fields.
const (
	Version    = 1
	MaxRoom    = 32
	MaxAddress = 64
	KeySize    = 32
	macSize    = sha256.Size
	fixedSize  = 1 + 8 + 8 + 8 + 1 + 1 + macSize
	// MaxSize is the longest token, which fits an ALPN protocol name (255).
	MaxSize = fixedSize + MaxRoom + MaxAddress
	// MinSecret is the shortest secret Mint and NewVerifier accept.
	MinSecret = 16
)

const (
	macLabel = "rollnet-connect/v1\n"
	keyLabel = "rollnet-connect-key/v1\n"
)

// Claims are what the backend vouches for.
type Claims struct {
	Room    string    // the match the client may join, at most MaxRoom bytes
	Client  uint64    // the backend's id for the player
	Expires time.Time // kept to the second
	Address string    // the host's address as it names itself (its Config.Address), at most MaxAddress bytes
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
	if len(c.Room) > MaxRoom || len(c.Address) > MaxAddress || c.Address == "" {
		return Grant{}, fmt.Errorf("%w: room of %d bytes (max %d) or address of %d (1 to %d)", ErrInvalid, len(c.Room), MaxRoom, len(c.Address), MaxAddress)
	}
	if rand == nil {
		rand = cryptoRand
	}
	var nonce [8]byte
	if _, err := io.ReadFull(rand, nonce[:]); err != nil {
		return Grant{}, fmt.Errorf("connecttoken: nonce: %w", err)
	}
	b := make([]byte, 0, fixedSize+len(c.Room)+len(c.Address))
	b = append(b, Version)
	b = binary.LittleEndian.AppendUint64(b, uint64(c.Expires.Unix()))
	b = binary.LittleEndian.AppendUint64(b, c.Client)
	b = append(b, nonce[:]...)
	b = append(append(b, byte(len(c.Room))), c.Room...)
	b = append(append(b, byte(len(c.Address))), c.Address...)
	m := hmac.New(sha256.New, secret)
	b = sign(m, b, b)
	g := Grant{Token: b, Claims: c}
	g.Claims.Expires = time.Unix(c.Expires.Unix(), 0)
	deriveKey(m, b[len(b)-macSize:], &g.Key)
	return g, nil
}

// sign appends the MAC of body to dst.
func sign(m hash.Hash, dst, body []byte) []byte {
	m.Reset()
	m.Write([]byte(macLabel))
	m.Write(body)
	return m.Sum(dst)
}

func deriveKey(m hash.Hash, mac []byte, key *[KeySize]byte) {
	m.Reset()
	m.Write([]byte(keyLabel))
	m.Write(mac)
	m.Sum(key[:0])
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
	p, err := parse(g.Token)
	if err != nil {
		return Grant{}, err
	}
	g.Claims = Claims{Room: string(p.room), Client: p.client, Expires: time.Unix(p.expires, 0), Address: string(p.address)}
	return g, nil
}

// parsed is a token's fields, pointing into its bytes.
type parsed struct {
	expires       int64
	client        uint64
	room, address []byte
	body, mac     []byte
}

// parse reads a token's layout; it does not check the MAC.
func parse(b []byte) (p parsed, err error) {
	if len(b) < fixedSize || len(b) > MaxSize {
		return p, fmt.Errorf("%w: %d bytes", ErrMalformed, len(b))
	}
	if b[0] != Version {
		return p, fmt.Errorf("%w: version %d", ErrMalformed, b[0])
	}
	p.expires = int64(binary.LittleEndian.Uint64(b[1:]))
	p.client = binary.LittleEndian.Uint64(b[9:])
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
	if p.room, ok = field(MaxRoom); !ok {
		return p, fmt.Errorf("%w: room", ErrMalformed)
	}
	if p.address, ok = field(MaxAddress); !ok || len(p.address) == 0 {
		return p, fmt.Errorf("%w: address", ErrMalformed)
	}
	if len(b)-off != macSize {
		return p, fmt.Errorf("%w: %d bytes where the MAC goes", ErrMalformed, len(b)-off)
	}
	p.body, p.mac = b[:off], b[off:]
	return p, nil
}

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
	if len(secret) < MinSecret {
		return nil, fmt.Errorf("%w: secret of %d bytes, under %d", ErrInvalid, len(secret), MinSecret)
	}
	if address == "" || len(address) > MaxAddress {
		return nil, fmt.Errorf("%w: address of %d bytes (1 to %d)", ErrInvalid, len(address), MaxAddress)
	}
	if cfg.MaxLifetime < 0 || cfg.MaxRemembered < 0 {
		return nil, fmt.Errorf("%w: negative MaxLifetime or MaxRemembered", ErrInvalid)
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
// fails, counting why, with ErrMalformed, ErrForged, ErrWrongAddress,
// ErrWrongRoom, ErrExpired, ErrReplayed (redeemed already) or ErrFull.
func (v *Verifier) Check(token []byte) (Ticket, error) {
	p, err := parse(token)
	if err != nil {
		v.malformed.Add(1)
		return Ticket{}, err
	}
	m := v.macs.Get().(hash.Hash)
	var sum [macSize]byte
	sign(m, sum[:0], p.body)
	v.macs.Put(m)
	if !hmac.Equal(sum[:], p.mac) {
		v.forged.Add(1)
		return Ticket{}, ErrForged
	}
	if string(p.address) != v.address {
		v.wrongAddress.Add(1)
		return Ticket{}, fmt.Errorf("%w: minted for %q, this host is %q", ErrWrongAddress, p.address, v.address)
	}
	if v.cfg.Room != "" && string(p.room) != v.cfg.Room {
		v.wrongRoom.Add(1)
		return Ticket{}, ErrWrongRoom
	}
	now := v.cfg.Now().Unix()
	if p.expires <= now {
		v.expired.Add(1)
		return Ticket{}, ErrExpired
	}
	if p.expires > now+int64(v.cfg.MaxLifetime/time.Second) {
		v.malformed.Add(1)
		return Ticket{}, fmt.Errorf("%w: expires more than %v ahead", ErrMalformed, v.cfg.MaxLifetime)
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
		v.seen[sum] = entry{expires: p.expires, presented: 1}
	} else {
		v.seen[sum] = entry{expires: p.expires, presented: 1}
	}
	v.mu.Unlock()
	v.reserved.Add(1)
	return Ticket{
		mac:     sum,
		expires: p.expires,
		Claims:  Claims{Room: string(p.room), Client: p.client, Expires: time.Unix(p.expires, 0), Address: v.address},
	}, nil
}

// Redeem uses a presented token for good if key is its client key
// (ErrWrongKey otherwise, and the presentation stands until Release), and
// if no other presentation redeemed it first (ErrReplayed).
func (v *Verifier) Redeem(t Ticket, key [KeySize]byte) error {
	m := v.macs.Get().(hash.Hash)
	var want [KeySize]byte
	deriveKey(m, t.mac[:], &want)
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
	deriveKey(m, t.mac[:], &k)
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
