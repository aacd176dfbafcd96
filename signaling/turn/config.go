package turn

import (
	"fmt"
	"log/slog"
	"net"
	"time"
)

// The defaults of Config's zero fields (Check shows them resolved).
const (
	defaultRealm                 = "rollnet"
	defaultMinPort               = 49152
	defaultMaxPort               = 65535
	defaultMaxAllocations        = 1000
	defaultMaxAllocationsPerUser = 16
	defaultMaxAllocationsPerAddr = 64
	defaultMaxPermissions        = 32
	defaultMaxChannels           = 64
	defaultMaxConnsPerAddr       = 16
	defaultMaxConns              = 1024
	defaultIdleTimeout           = time.Minute
	defaultAllocationLifetime    = 10 * time.Minute
)

// Config configures a Relay. The zero value of every field but Secret and
// PublicIP means its documented default; a negative number is an error
// (rollnet.ErrConfig).
type Config struct {
	// Secret is the shared secret of the TURN REST scheme: coturn's
	// static-auth-secret, and the signaling server's TURNSecret. Required.
	Secret []byte

	// PublicIP is the address the relay's allocations are announced at
	// (XOR-RELAYED-ADDRESS, and the host of URLs): the address peers on
	// the Internet reach this machine at. Required.
	PublicIP net.IP

	// Realm is the long-term credential realm (default "rollnet").
	Realm string

	// RelayBind is the local address relay sockets are bound to (default
	// "0.0.0.0"). Behind a 1:1 NAT it is the private address PublicIP maps
	// to.
	RelayBind string

	// MinPort and MaxPort bound the UDP ports of relay sockets, inclusive
	// (default 49152-65535, coturn's): the range a firewall opens.
	MinPort, MaxPort int

	// MaxAllocations caps the live allocations in total (default 1000);
	// MaxAllocationsPerUser caps those of one credential's user id
	// (default 16: a peer in a full room of 8 holds one allocation per
	// other peer and TURN URL). Over either, Allocate is answered 508.
	MaxAllocations        int
	MaxAllocationsPerUser int

	// MaxAllocationsPerAddr caps the live allocations of one client IP
	// address (default 64), whatever credentials they use: one join
	// mints one user id, and an attacker who joins again and again would
	// otherwise take the whole relay. Over it, Allocate is answered 486.
	// Players behind one carrier-grade NAT share it.
	MaxAllocationsPerAddr int

	// MaxPermissions caps the peer addresses one allocation may relay to
	// (default 32; ICE asks for one per remote candidate's address).
	// pion keeps a timer per permission: without a cap one allocation could
	// grow the relay's memory without bound. A refresh of a permission
	// held is always granted.
	MaxPermissions int

	// MaxChannels caps one allocation's channel bindings (default 64;
	// pion's client binds one per peer address it sends to). An allocation
	// holding MaxChannels is granted nothing more, not even a refresh,
	// until some expire: a peer address is an IP and a port, so only this
	// bounds the bindings, and their timers, an allocation can make.
	MaxChannels int

	// MaxConnsPerAddr caps the TURN-over-TCP connections one IP address
	// holds (default 16), MaxConns those in total (default 1024); over
	// either, a new connection is closed at accept. A TCP connection silent
	// for IdleTimeout (default 1 min) is closed.
	MaxConnsPerAddr int
	MaxConns        int
	IdleTimeout     time.Duration

	// AllocationLifetime is an allocation's lifetime when the client asks
	// for none (default 10 min); a client refreshes it with valid
	// credentials. pion caps a requested lifetime at 1 h.
	AllocationLifetime time.Duration

	// AllowLoopback lets allocations relay to loopback peers (127.0.0.0/8,
	// ::1), AllowPrivate to private and local ranges (RFC 1918, CGNAT,
	// link-local, unique local). Both default to false: a relay that
	// forwards to them lets anyone with credentials reach services on the
	// relay's own machine and network. Tests on one machine need
	// AllowLoopback.
	AllowLoopback bool
	AllowPrivate  bool

	// Now is the clock credentials are checked against (nil: time.Now).
	Now func() time.Time

	// Logger receives the relay's and pion's logs (nil: discarded).
	Logger *slog.Logger
}

// Check returns c with every zero field set to its default, and the error
// (wrapping rollnet.ErrConfig) that makes it invalid, if any: Listen runs
// with what Check returns. The defaults are filled even when a required
// field (Secret, PublicIP) is missing, so a command shows them in its
// flags' help from Check's result on a zero Config.
func (c Config) Check() (Config, error) { return c.withDefaults() }

func (c Config) withDefaults() (Config, error) {
	for _, f := range []struct {
		name string
		v    *int
		def  int
	}{
		{"MinPort", &c.MinPort, defaultMinPort},
		{"MaxPort", &c.MaxPort, defaultMaxPort},
		{"MaxAllocations", &c.MaxAllocations, defaultMaxAllocations},
		{"MaxAllocationsPerUser", &c.MaxAllocationsPerUser, defaultMaxAllocationsPerUser},
		{"MaxAllocationsPerAddr", &c.MaxAllocationsPerAddr, defaultMaxAllocationsPerAddr},
		{"MaxPermissions", &c.MaxPermissions, defaultMaxPermissions},
		{"MaxChannels", &c.MaxChannels, defaultMaxChannels},
		{"MaxConnsPerAddr", &c.MaxConnsPerAddr, defaultMaxConnsPerAddr},
		{"MaxConns", &c.MaxConns, defaultMaxConns},
	} {
		if *f.v < 0 {
			return c, fmt.Errorf("%w: %s is %d, want >= 0", errConfig, f.name, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	for _, f := range []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"IdleTimeout", &c.IdleTimeout, defaultIdleTimeout},
		{"AllocationLifetime", &c.AllocationLifetime, defaultAllocationLifetime},
	} {
		if *f.v < 0 {
			return c, fmt.Errorf("%w: %s is %v, want >= 0", errConfig, f.name, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	if c.MinPort > c.MaxPort || c.MaxPort > 65535 {
		return c, fmt.Errorf("%w: port range %d-%d, want MinPort <= MaxPort <= 65535", errConfig, c.MinPort, c.MaxPort)
	}
	if c.Realm == "" {
		c.Realm = defaultRealm
	}
	if c.RelayBind == "" {
		c.RelayBind = "0.0.0.0"
	}
	if net.ParseIP(c.RelayBind) == nil {
		return c, fmt.Errorf("%w: RelayBind %q is not an IP address", errConfig, c.RelayBind)
	}
	c.Secret = append([]byte(nil), c.Secret...)
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if len(c.Secret) == 0 {
		return c, fmt.Errorf("%w: Secret is empty", errConfig)
	}
	if c.PublicIP == nil || c.PublicIP.IsUnspecified() {
		return c, fmt.Errorf("%w: PublicIP %v is not an address peers can reach", errConfig, c.PublicIP)
	}
	return c, nil
}
