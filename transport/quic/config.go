package quic

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/tokenverify"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// alpnProtocol is the ALPN protocol name of rollnet's datagrams over QUIC,
// version 1. A host refuses a handshake that does not offer it; a change to
// the hello exchange or the datagram framing bumps it.
const alpnProtocol = "rollnet/1"

// WebTransportPath is the path of a host's WebTransport endpoint: a
// browser connects to https://HOST:PORT/rollnet.
const WebTransportPath = "/rollnet"

// Defaults of Config, used where a field is zero.
const (
	defaultQueueLen         = 256
	defaultSendQueueLen     = 8
	defaultBulkQueueLen     = 64
	defaultMaxPeers         = 64
	defaultMaxPending       = 16
	DefaultMaxConnsPerAddr  = 8
	defaultHandshakeTimeout = 2 * time.Second
	defaultHelloTimeout     = 2 * time.Second
	defaultIdleTimeout      = 5 * time.Second
	defaultKeepAlive        = time.Second
	defaultMaxMigrations    = 8
)

// Config configures a Transport. The zero value of every field means its
// documented default. Fields marked host or client are read only on that
// side.
type Config struct {
	// Certificate is the host's certificate chain and key (host). Nil
	// means a self-signed certificate made by Listen (SelfSigned): its
	// SHA-256 is CertHash, for clients to pin.
	Certificate *tls.Certificate

	// Address is the host's address as its clients dial it and as connect
	// tokens name it (host), "203.0.113.5:4433" or "game.example:4433".
	// Empty means the listening socket's address. It is also the host's
	// Peer identity ("quic://" + Address).
	Address string

	// WebTransport also serves browsers on the same port (host): a page
	// connects with new WebTransport("https://" + Address +
	// WebTransportPath, ...) (DialWebTransport in a Go wasm build), offers
	// HTTP/3 instead of "rollnet/1", passes its connect token in the URL, and
	// runs the same hello on the session's first stream.
	WebTransport bool

	// MaxPeers bounds the admitted peers (host); a client over it is
	// refused. 0 means 64.
	MaxPeers int

	// PinSHA256 is the SHA-256 of the host's certificate (client): when
	// set, Dial accepts that certificate and no other, whoever signed it;
	// when zero, the host's certificate must verify against RootCAs for
	// ServerName.
	PinSHA256 [32]byte

	// RootCAs and ServerName verify the host's certificate when PinSHA256
	// is zero (client). Nil RootCAs means the system's; empty ServerName
	// means the dialed host name.
	RootCAs    *x509.CertPool
	ServerName string

	// TokenSecret, when set, admits only clients that present a connect
	// token minted with it for this host's Address (host; the secret the
	// game's backend mints with, at least 32 bytes): the token in the
	// ClientHello, checked before any TLS work, and its client key in the
	// hello (see transport/quic/connecttoken). A token is single use and
	// expires as its claims say. An admitted client's id is "client-" and
	// the token's client id in decimal, so that a client who reconnects
	// with a new token is the same peer (its old connection, if any, is
	// gone with transport.ErrReplaced). Nil admits every client that
	// completes the hello, with ids "q1", "q2", ... (Neither form can be a
	// signaling id, 16 hex digits, so one host can serve QUIC and WebRTC
	// clients side by side: transport/multi.)
	TokenSecret []byte

	// tokens is the verifier built from TokenSecret (or set by a test).
	tokens *tokenverify.Verifier

	// Admit, when set with TokenSecret, is asked about each client whose
	// token verified, before the token is redeemed (host): a non-nil
	// error refuses the client with the error's text, which its Dial
	// returns wrapped in ErrRefused, and leaves the token unused. A host
	// that runs one match per room refuses here what it cannot take (it
	// drains, it is full) at once, where the client would otherwise hear
	// nothing. It is called from the connections' goroutines, for several
	// clients at a time: it must be safe for concurrent use.
	Admit func(connecttoken.Claims) error

	// Grant is the connect token the client presents (client), as the
	// game's backend minted it for this host.
	Grant *connecttoken.Grant

	// Tuning holds the knobs a game rarely turns: queue lengths, timeouts,
	// admission bounds.
	Tuning Tuning
}

// Tuning holds Config's rarely turned knobs; the zero value of each means
// its documented default.
type Tuning struct {
	// QueueLen is the number of received datagrams waiting for Receive,
	// shared fairly by the peers (one lane each); a datagram arriving at a
	// full queue is dropped and counted. 0 means 256.
	QueueLen int

	// SendQueueLen is the number of datagrams Send lets wait for a peer's
	// connection; past it a datagram supersedes the oldest waiting one of
	// its kind, or else the oldest one a newer one of its own kind
	// follows is superseded, or else it pushes out the oldest (see Send).
	// 0 means 8.
	SendQueueLen int

	// BulkQueueLen is SendQueueLen for SendBulk. 0 means 64. It must be at
	// least SendQueueLen.
	BulkQueueLen int

	// IdleTimeout is how long a connection may stay silent before it is
	// closed and its peer gone; KeepAlive is how often an idle side pings.
	// 0 means 5 s and 1 s.
	IdleTimeout time.Duration
	KeepAlive   time.Duration

	// HandshakeTimeout bounds the QUIC handshake, and HelloTimeout the
	// hello exchange after it, on both sides. 0 means the defaults (2 s).
	HandshakeTimeout time.Duration
	HelloTimeout     time.Duration

	// MaxPending bounds connections past the handshake waiting for their
	// hello (host; or a WebTransport session's hello): a new one closes the
	// oldest, its own address's oldest once the address holds an eighth of
	// MaxPending. MaxConnsPerAddr bounds the connections (handshaking,
	// pending or admitted) from one IP address: the next handshake from it
	// is refused before any TLS work. 0 means the defaults (16,
	// DefaultMaxConnsPerAddr).
	MaxPending      int
	MaxConnsPerAddr int

	// MaxMigrations bounds the sockets Migrate may open (client): every
	// path a connection has used stays open until Close. 0 means 8.
	MaxMigrations int
}

func (c Config) withDefaults() (Config, error) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Tuning.QueueLen, defaultQueueLen)
	def(&c.Tuning.SendQueueLen, defaultSendQueueLen)
	def(&c.Tuning.BulkQueueLen, defaultBulkQueueLen)
	def(&c.MaxPeers, defaultMaxPeers)
	def(&c.Tuning.MaxPending, defaultMaxPending)
	def(&c.Tuning.MaxConnsPerAddr, DefaultMaxConnsPerAddr)
	def(&c.Tuning.MaxMigrations, defaultMaxMigrations)
	defDur(&c.Tuning.IdleTimeout, defaultIdleTimeout)
	defDur(&c.Tuning.KeepAlive, defaultKeepAlive)
	defDur(&c.Tuning.HandshakeTimeout, defaultHandshakeTimeout)
	defDur(&c.Tuning.HelloTimeout, defaultHelloTimeout)
	for _, f := range []struct {
		name string
		v    int
	}{
		{"Tuning.QueueLen", c.Tuning.QueueLen}, {"Tuning.SendQueueLen", c.Tuning.SendQueueLen}, {"Tuning.BulkQueueLen", c.Tuning.BulkQueueLen},
		{"MaxPeers", c.MaxPeers}, {"Tuning.MaxPending", c.Tuning.MaxPending}, {"Tuning.MaxConnsPerAddr", c.Tuning.MaxConnsPerAddr},
		{"Tuning.MaxMigrations", c.Tuning.MaxMigrations},
	} {
		if f.v < 0 {
			return c, fmt.Errorf("%w: quic: %s is %d", rollnet.ErrConfig, f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    time.Duration
	}{
		{"Tuning.IdleTimeout", c.Tuning.IdleTimeout}, {"Tuning.KeepAlive", c.Tuning.KeepAlive},
		{"Tuning.HandshakeTimeout", c.Tuning.HandshakeTimeout}, {"Tuning.HelloTimeout", c.Tuning.HelloTimeout},
	} {
		if f.v < 0 {
			return c, fmt.Errorf("%w: quic: %s is %v", rollnet.ErrConfig, f.name, f.v)
		}
	}
	if c.Tuning.BulkQueueLen < c.Tuning.SendQueueLen {
		return c, fmt.Errorf("%w: quic: Tuning.BulkQueueLen %d is below Tuning.SendQueueLen %d", rollnet.ErrConfig, c.Tuning.BulkQueueLen, c.Tuning.SendQueueLen)
	}
	if c.Tuning.KeepAlive >= c.Tuning.IdleTimeout {
		return c, fmt.Errorf("%w: quic: Tuning.KeepAlive %v is not below Tuning.IdleTimeout %v", rollnet.ErrConfig, c.Tuning.KeepAlive, c.Tuning.IdleTimeout)
	}
	if len(c.Address) > 255 {
		return c, fmt.Errorf("%w: quic: Address is %d bytes, over 255", rollnet.ErrConfig, len(c.Address))
	}
	if c.Admit != nil && c.tokens == nil && len(c.TokenSecret) == 0 {
		return c, fmt.Errorf("%w: quic: Admit without TokenSecret (it is asked about a client's token)", rollnet.ErrConfig)
	}
	return c, nil
}
