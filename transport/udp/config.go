package udp

import (
	"fmt"
	"time"

	"github.com/rollnet/rollnet/internal/tokenverify"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// Defaults of Config, used where a field is zero.
const (
	defaultQueueLen         = 256
	defaultMaxPeers         = 256
	defaultMaxPending       = 64
	defaultMaxPerAddr       = 8
	defaultTimeout          = 5 * time.Second
	defaultKeepAlive        = 250 * time.Millisecond
	defaultHandshakeTimeout = 5 * time.Second
	defaultPendingTimeout   = 2 * time.Second
	defaultSendQueueLen     = 1024
	defaultCookieLifetime   = 5 * time.Second
)

// Config configures a Transport. The zero value of every field means its
// documented default. Fields marked host or client are read only on that
// side.
type Config struct {
	// TokenSecret is the secret the game's backend mints connect tokens
	// with (host, required, at least 32 bytes): the host admits only
	// clients with a token minted with it for this host's Address, once
	// each (TestCopiedTokenNotHeld).
	TokenSecret []byte

	// tokens is the verifier built from TokenSecret (or set by a test).
	tokens *tokenverify.Verifier

	// Grant is the client's connect token and key, from the game's
	// backend (client, required).
	Grant *connecttoken.Grant

	// LocalAddr is the address a client sends from ("127.0.0.2:0");
	// empty means any (client).
	LocalAddr string

	// Address is the host's address as connect tokens name it (host); its
	// Peer identity is "udp://" + Address. Empty means the socket's.
	Address string

	// QueueLen is the number of received datagrams waiting for Receive,
	// shared fairly by the peers (one lane each). 0 means 256.
	QueueLen int

	// SendQueueLen is the number of sealed datagrams waiting for the
	// socket; past it a datagram supersedes the oldest of its kind (see
	// Send). 0 means 1024. SendBulk takes a datagram only while fewer
	// than half wait.
	SendQueueLen int

	// MaxPeers bounds the connected and pending clients together (host).
	// 0 means 256. MaxPending bounds the pending ones (admitted, not yet
	// heard under their keys); 0 means 64. MaxPerAddr bounds what one IP
	// address holds of both; 0 means 8.
	MaxPeers, MaxPending, MaxPerAddr int

	// Timeout is how long a peer may stay silent before it is gone;
	// KeepAlive is how long a side waits without sending before it sends
	// a keep-alive. 0 means 5 s and 250 ms.
	Timeout, KeepAlive time.Duration

	// HandshakeTimeout bounds Dial (client). 0 means 5 s. PendingTimeout
	// bounds how long an admitted client may stay unheard (host). 0 means
	// 2 s.
	HandshakeTimeout, PendingTimeout time.Duration

	// Now is the clock of every timeout; nil means time.Now.
	Now func() time.Time

	// Tuning holds the knobs a game rarely turns.
	Tuning Tuning
}

// Tuning holds Config's rarely turned knobs; the zero value of each means
// its default.
type Tuning struct {
	// Resend is how often a client repeats an unanswered handshake
	// packet. 0 means 100 ms.
	Resend time.Duration
	// Housekeep is how often the transport's timer looks at its
	// timeouts, keep-alives and resends, on the real clock. 0 means
	// 20 ms.
	Housekeep time.Duration
	// CookieLifetime bounds how long a challenge stays good. 0 means 5 s.
	CookieLifetime time.Duration
	// Batch is the number of datagrams one system call moves at most
	// (recvmmsg/sendmmsg on Linux). 0 means 64.
	Batch int
}

func (c Config) withDefaults(host bool) (Config, error) {
	if host && c.tokens == nil && len(c.TokenSecret) == 0 {
		return c, ErrNoVerifier
	}
	for _, v := range []int{c.QueueLen, c.SendQueueLen, c.MaxPeers, c.MaxPending, c.MaxPerAddr, c.Tuning.Batch} {
		if v < 0 {
			return c, fmt.Errorf("%w: a negative size in Config", ErrInvalid)
		}
	}
	for _, d := range []time.Duration{c.Timeout, c.KeepAlive, c.HandshakeTimeout, c.PendingTimeout, c.Tuning.Resend, c.Tuning.Housekeep, c.Tuning.CookieLifetime} {
		if d < 0 {
			return c, fmt.Errorf("%w: a negative duration in Config", ErrInvalid)
		}
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defd := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.QueueLen, defaultQueueLen)
	def(&c.SendQueueLen, defaultSendQueueLen)
	def(&c.MaxPeers, defaultMaxPeers)
	def(&c.MaxPending, defaultMaxPending)
	def(&c.MaxPerAddr, defaultMaxPerAddr)
	def(&c.Tuning.Batch, 64)
	defd(&c.Timeout, defaultTimeout)
	defd(&c.KeepAlive, defaultKeepAlive)
	defd(&c.HandshakeTimeout, defaultHandshakeTimeout)
	defd(&c.PendingTimeout, defaultPendingTimeout)
	defd(&c.Tuning.Resend, 100*time.Millisecond)
	defd(&c.Tuning.Housekeep, 20*time.Millisecond)
	defd(&c.Tuning.CookieLifetime, defaultCookieLifetime)
	if c.Now == nil {
		c.Now = time.Now
	}
	return c, nil
}
