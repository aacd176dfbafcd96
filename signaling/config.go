package signaling

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/signaling/internal/wire"
)

// The defaults of ServerConfig's zero fields (Check shows them resolved).
const (
	defaultMaxRoomSize     = 8
	defaultMaxMessageSize  = 16 << 10
	defaultMessageRate     = 50
	defaultMessageBurst    = 100
	defaultMaxConnsPerAddr = 32
	defaultMaxConns        = 10000
	defaultJoinTimeout     = 10 * time.Second
	defaultPingInterval    = 15 * time.Second
	defaultPingTimeout     = 10 * time.Second
	defaultWriteTimeout    = 10 * time.Second
	defaultCloseTimeout    = time.Second
	defaultSendQueue       = 64

	// Joins per client address and per named room: a player reconnecting,
	// or a LAN party behind one NAT, is well inside; a join/leave loop is not.
	defaultJoinRate, defaultJoinBurst         = 2, 20
	defaultRoomJoinRate, defaultRoomJoinBurst = 2, 16
	// An offer and its candidates, or an answer and its candidates.
	defaultReplyAllowance = 16

	// The http.Server that Serve runs.
	defaultHeaderTimeout, defaultIdleTimeout = 10 * time.Second, 30 * time.Second
	defaultMaxHeaderBytes                    = 8 << 10

	defaultTURNCredentialTTL = time.Hour
)

// ServerConfig configures NewServer. The zero value of every field means its
// documented default; a negative value is an error (client.ErrConfig).
type ServerConfig struct {
	// MaxRoomSize caps the peers in one room (default 8). A next=N request
	// needs 2 <= N <= MaxRoomSize.
	MaxRoomSize int
	// MaxMembersPerAddr caps the connections one client address may hold
	// for one named room, members and joining ones alike (default: half of
	// MaxRoomSize, rounded up: 4 of 8), so that one address can never fill a
	// room alone. One more is refused with HTTP 429 (client.ErrTooManyConnections)
	// before the upgrade. Loopback addresses are exempt (tests, the demo);
	// next=N rooms are not capped (whoever comes next fills them). With
	// NATS the count is per instance.
	MaxMembersPerAddr int
	// TrustedProxies are the reverse proxies whose word on the client's
	// address is taken: a request whose TCP peer is in one counts against
	// the address in its Forwarded header (else X-Forwarded-For), read
	// right to left past the trusted hops. Headers from any other address
	// are ignored. (ClientAddr, when set, overrides this.)
	TrustedProxies []netip.Prefix
	// TokenSecret, when set, requires a join token (see Token) for the
	// room on every connection, checked before the upgrade. Without it,
	// rooms are open.
	TokenSecret []byte
	// TokenRooms, with TokenSecret, narrows the token requirement to the
	// named rooms whose names start with one of these prefixes (the
	// command's -token-room, repeatable); the other rooms, and next=N
	// grouping, stay open. Empty: every room requires a token. A game
	// whose rooms must hold more players than the per-address caps
	// guarantee (two addresses can fill a room of 2*MaxMembersPerAddr)
	// names its rooms under such a prefix and hands its players tokens.
	TokenRooms []string
	// ICEServers are handed to every client at join. A TURN server needs a
	// Username and Credential, unless TURNSecret is set and both are empty.
	ICEServers []client.ICEServer
	// TURNSecret, when set, makes the server mint short-lived TURN
	// credentials at every join, in the TURN REST API scheme that coturn's
	// use-auth-secret checks: each ICE server with a turn URL and no
	// Username is handed out with username "EXPIRY:ID" (Unix seconds, the
	// client's id) and credential base64(HMAC-SHA1(TURNSecret, username)).
	TURNSecret []byte
	// OriginPatterns lists the browser origins allowed besides the
	// server's own host (see websocket.AcceptOptions). Clients that send no
	// Origin header (Go programs) are always allowed.
	OriginPatterns []string
	// ClientAddr returns the address a request counts against for
	// MaxConnsPerAddr and JoinRate (nil: the host of r.RemoteAddr, or the
	// address a TrustedProxies proxy vouches for). It overrides
	// TrustedProxies for that count; Serve's accept-time count still uses
	// the TCP peer.
	ClientAddr func(r *http.Request) string
	// Now is the clock for token expiry and rate limits (nil: time.Now).
	Now func() time.Time
	// Logger receives structured logs (nil: discarded).
	Logger *slog.Logger
	// NATS, when set (a *nats.Conn of github.com/nats-io/nats.go), makes
	// the server one of a set of instances that share rooms over this
	// connection (JetStream must be enabled on the NATS server); nil: a
	// single instance that needs nothing else. The caller owns the
	// connection and closes it after Close. Cluster configures the
	// sharing. In a browser build (GOOS=js), which leaves NATS out, it
	// cannot be set.
	NATS    natsConn
	Cluster ClusterConfig
	// Tuning holds the knobs an operator rarely turns: message and join
	// rates, connection caps, timeouts, queue lengths.
	Tuning ServerTuning
}

// ServerTuning holds ServerConfig's rarely turned knobs; the zero value of
// each means its documented default.
type ServerTuning struct {
	// MaxMessageSize caps one incoming message in bytes (default 16 KiB);
	// a larger one closes the connection with 1009.
	MaxMessageSize int
	// MessageRate is the messages per second a connection may send on
	// average, and MessageBurst how many it may send at once (defaults 50
	// and 100; every message counts, the join, pings and pongs too, but
	// not the signals ReplyAllowance covers). Exceeding it closes the
	// connection with code 4002.
	MessageRate  int
	MessageBurst int
	// JoinRate and JoinBurst bound the join attempts from one client
	// address (defaults 2 a second, 20 at once), RoomJoinRate and
	// RoomJoinBurst those into one named room (defaults 2 a second, 16 at
	// once; the last half is kept for addresses that joined the room at
	// most RoomJoinBurst/4 times lately, each join counted down at
	// RoomJoinRate/4 a second): over either, the request is refused with HTTP 429
	// before the upgrade. A loopback client address
	// (tests, the demo, a local proxy not in TrustedProxies) has no
	// per-address join limit; a remote peer cannot send from one. Every join makes each
	// member signal the newcomer, so join/leave churn would otherwise make
	// members send without bound.
	JoinRate      int
	JoinBurst     int
	RoomJoinRate  int
	RoomJoinBurst int
	// ReplyAllowance is how many signals a member may send to a peer free
	// of its own rate limit after that peer joined its room, or sent it a
	// signal that was charged (default 16): the offer and candidates a
	// join causes, the answer and candidates an offer causes, are charged
	// to whoever caused them. Free signals grant nothing, so two peers
	// cannot trade them without bound. A signal to a peer that left less
	// than 10 s ago (it crossed peer-left) uses the allowance too.
	ReplyAllowance int
	// MaxConnsPerAddr caps the open connections from one IP address
	// (default 32); MaxConns caps them in total (default 10000). Over
	// either, the upgrade is refused with HTTP 429. Serve also counts TCP
	// connections at accept, before reading anything: one over MaxConns,
	// or over MaxConnsPerAddr+8 from its address, gets HTTP 429 and is
	// closed (a TrustedProxies address is not capped
	// per address there, since it carries many clients).
	MaxConnsPerAddr int
	MaxConns        int
	// HeaderTimeout bounds the reading of a request's headers (default
	// 10 s), MaxHeaderBytes their size (default 8 KiB), and IdleTimeout
	// how long Serve keeps an idle keep-alive connection (default 30 s).
	// They bound the http.Server that Serve runs.
	HeaderTimeout  time.Duration
	IdleTimeout    time.Duration
	MaxHeaderBytes int
	// JoinTimeout is how long a connection may stay open without joining
	// (default 10 s); then it is closed with code 4003.
	JoinTimeout time.Duration
	// PingInterval is how often the server pings every connection (default
	// 15 s); one that does not answer within PingTimeout (default 10 s) is
	// closed with code 4005.
	PingInterval time.Duration
	PingTimeout  time.Duration
	// WriteTimeout bounds one write to a connection (default 10 s).
	WriteTimeout time.Duration
	// CloseTimeout bounds the close handshake after the server decided to
	// close a connection (default 1 s); then the socket is cut.
	CloseTimeout time.Duration
	// SendQueue is the number of messages queued for one connection
	// (default 64). A connection whose queue overflows is a slow consumer:
	// it is dropped with code 4004, and no one
	// else waits for it.
	SendQueue int
	// TURNCredentialTTL is how long minted TURN credentials last (default
	// 1 h).
	TURNCredentialTTL time.Duration
}

// Check returns c with every zero field set to its default, Cluster's
// too, or the error (wrapping client.ErrConfig) that makes it invalid:
// NewServer runs with what Check returns (Cluster's only with NATS). A
// command shows the defaults in its flags' help from Check's result.
func (c ServerConfig) Check() (ServerConfig, error) {
	c, err := c.withDefaults()
	if err != nil {
		return c, err
	}
	c.Cluster, err = c.Cluster.withDefaults()
	return c, err
}

func (c ServerConfig) withDefaults() (ServerConfig, error) {
	ints := []field[int]{
		{"MaxRoomSize", &c.MaxRoomSize, defaultMaxRoomSize},
		{"MaxMessageSize", &c.Tuning.MaxMessageSize, defaultMaxMessageSize},
		{"MessageRate", &c.Tuning.MessageRate, defaultMessageRate},
		{"MessageBurst", &c.Tuning.MessageBurst, defaultMessageBurst},
		{"MaxConnsPerAddr", &c.Tuning.MaxConnsPerAddr, defaultMaxConnsPerAddr},
		{"MaxConns", &c.Tuning.MaxConns, defaultMaxConns},
		{"SendQueue", &c.Tuning.SendQueue, defaultSendQueue},
		{"MaxHeaderBytes", &c.Tuning.MaxHeaderBytes, defaultMaxHeaderBytes},
		{"JoinRate", &c.Tuning.JoinRate, defaultJoinRate},
		{"JoinBurst", &c.Tuning.JoinBurst, defaultJoinBurst},
		{"RoomJoinRate", &c.Tuning.RoomJoinRate, defaultRoomJoinRate},
		{"RoomJoinBurst", &c.Tuning.RoomJoinBurst, defaultRoomJoinBurst},
		{"ReplyAllowance", &c.Tuning.ReplyAllowance, defaultReplyAllowance},
	}
	if err := setDefaults(ints); err != nil {
		return c, err
	}
	durs := []field[time.Duration]{
		{"JoinTimeout", &c.Tuning.JoinTimeout, defaultJoinTimeout},
		{"PingInterval", &c.Tuning.PingInterval, defaultPingInterval},
		{"PingTimeout", &c.Tuning.PingTimeout, defaultPingTimeout},
		{"WriteTimeout", &c.Tuning.WriteTimeout, defaultWriteTimeout},
		{"CloseTimeout", &c.Tuning.CloseTimeout, defaultCloseTimeout},
		{"TURNCredentialTTL", &c.Tuning.TURNCredentialTTL, defaultTURNCredentialTTL},
		{"HeaderTimeout", &c.Tuning.HeaderTimeout, defaultHeaderTimeout},
		{"IdleTimeout", &c.Tuning.IdleTimeout, defaultIdleTimeout},
	}
	if err := setDefaults(durs); err != nil {
		return c, err
	}
	if c.MaxMembersPerAddr < 0 {
		return c, fmt.Errorf("%w: MaxMembersPerAddr is %d, want >= 0", wire.ErrConfig, c.MaxMembersPerAddr)
	}
	if c.MaxMembersPerAddr == 0 {
		c.MaxMembersPerAddr = (c.MaxRoomSize + 1) / 2
	}
	if c.MaxRoomSize < 2 {
		return c, fmt.Errorf("%w: MaxRoomSize is %d, want >= 2", wire.ErrConfig, c.MaxRoomSize)
	}
	if c.Tuning.MaxMessageSize < 512 {
		return c, fmt.Errorf("%w: MaxMessageSize is %d, want >= 512", wire.ErrConfig, c.Tuning.MaxMessageSize)
	}
	for i, s := range c.ICEServers {
		if len(c.TURNSecret) > 0 && s.Username == "" && s.Credential == "" {
			s.Username, s.Credential = "minted", "minted" // filled in at join
		}
		if err := s.Validate(); err != nil {
			return c, fmt.Errorf("%w: ICEServers[%d]: %v", wire.ErrConfig, i, err)
		}
	}
	c.ICEServers = append([]wire.ICEServer(nil), c.ICEServers...)
	c.TokenSecret = append([]byte(nil), c.TokenSecret...)
	if len(c.TokenRooms) > 0 && len(c.TokenSecret) == 0 {
		return c, fmt.Errorf("%w: TokenRooms without a TokenSecret", wire.ErrConfig)
	}
	for i, p := range c.TokenRooms {
		if !validRoom(p) {
			return c, fmt.Errorf("%w: TokenRooms[%d] %q is not the start of a room name", wire.ErrConfig, i, p)
		}
	}
	c.TokenRooms = append([]string(nil), c.TokenRooms...)
	c.TURNSecret = append([]byte(nil), c.TURNSecret...)
	c.TrustedProxies = append([]netip.Prefix(nil), c.TrustedProxies...)
	for i, p := range c.TrustedProxies {
		if !p.IsValid() {
			return c, fmt.Errorf("%w: TrustedProxies[%d] is not a valid prefix", wire.ErrConfig, i)
		}
		c.TrustedProxies[i] = p.Masked()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

// field is a config field: its name, where it is, and its default.
type field[T int | time.Duration] struct {
	name string
	v    *T
	def  T
}

// setDefaults sets each zero field to its default, and refuses a negative
// one with client.ErrConfig.
func setDefaults[T int | time.Duration](fs []field[T]) error {
	for _, f := range fs {
		if *f.v < 0 {
			return fmt.Errorf("%w: %s is %v, want >= 0", wire.ErrConfig, f.name, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	return nil
}
