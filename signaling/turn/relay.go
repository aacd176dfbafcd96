package turn

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"

	pionturn "github.com/pion/turn/v5"
)

// Relay is a running TURN server: pion's, with rollnet's credentials,
// caps and peer filter.
type Relay struct {
	cfg   Config
	log   *slog.Logger
	srv   *pionturn.Server
	udp   net.PacketConn // nil when serving TCP only
	tcp   *listener      // nil when serving UDP only
	alloc *allocator

	closeOnce sync.Once
	closeErr  error

	stats struct {
		allocations, quotaRefused, capRefused, malformed, expired, forged,
		peersRefused, tcpRefused, connsRefused, expiredEnded, addrRefused, permsRefused atomic.Uint64
	}

	addrMu  sync.Mutex
	perAddr map[string]int // live allocations by client IP

	permMu sync.Mutex
	perms  map[string]map[string]struct{} // peer IPs permitted, by client address (one allocation each)
	chans  map[string]int                 // channel bindings, by client address
}

// Stats is a snapshot of a relay's state and counters.
type Stats struct {
	Allocations  int    // live allocations (each holds a relay socket)
	TCPConns     int    // open TURN-over-TCP connections
	Allocated    uint64 // allocations made
	QuotaRefused uint64 // allocations refused: the user's MaxAllocationsPerUser
	AddrRefused  uint64 // allocations refused: the client address's MaxAllocationsPerAddr
	CapRefused   uint64 // allocations refused: MaxAllocations in total
	Malformed    uint64 // requests refused: username not EXPIRY:ID, or another realm
	Expired      uint64 // requests refused: credentials past their expiry
	Forged       uint64 // requests refused: password not the secret's HMAC of the username
	PeersRefused uint64 // permissions refused: a loopback, private or reserved peer
	PermsRefused uint64 // permissions and channels refused: the allocation's MaxPermissions or MaxChannels
	TCPRefused   uint64 // RFC 6062 TCP allocations refused
	ConnsRefused uint64 // TCP connections closed at accept: MaxConnsPerAddr or MaxConns
	ExpiredEnded uint64 // allocations ended because their credentials expired
}

// Listen starts a relay on addr ("host:port") over UDP and TCP, on the
// same port. With port 0 it picks a port free for both.
func Listen(cfg Config, addr string) (*Relay, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: listen address %q: %v", errConfig, addr, err)
	}
	var lastErr error
	for range 10 {
		pc, err := net.ListenPacket("udp", addr)
		if err != nil {
			return nil, err
		}
		tcpAddr := net.JoinHostPort(host, strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port))
		ln, err := net.Listen("tcp", tcpAddr)
		if err != nil {
			_ = pc.Close()
			if port != "0" {
				return nil, err
			}
			lastErr = err // the UDP port's TCP twin is taken: try another
			continue
		}
		r, err := newRelay(cfg, pc, ln)
		if err != nil {
			_ = pc.Close()
			_ = ln.Close()
		}
		return r, err
	}
	return nil, lastErr
}

// newRelay starts a relay serving TURN on pc (UDP) and ln (TCP); either
// may be nil, not both. The relay owns them: Close closes them.
func newRelay(cfg Config, pc net.PacketConn, ln net.Listener) (*Relay, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if pc == nil && ln == nil {
		return nil, fmt.Errorf("%w: no UDP socket and no TCP listener", errConfig)
	}
	r := &Relay{cfg: cfg, log: cfg.Logger, udp: pc, perAddr: make(map[string]int),
		perms: make(map[string]map[string]struct{}), chans: make(map[string]int)}
	r.alloc = &allocator{r: r, perUser: make(map[string]int), conns: make(map[*relayConn]struct{}), next: &pionturn.RelayAddressGeneratorPortRange{
		RelayAddress: cfg.PublicIP,
		Address:      cfg.RelayBind,
		MinPort:      uint16(cfg.MinPort),
		MaxPort:      uint16(cfg.MaxPort),
	}}
	sc := pionturn.ServerConfig{
		Realm:              cfg.Realm,
		AuthHandler:        r.authenticate,
		QuotaHandler:       r.addrQuota,
		AllocationLifetime: cfg.AllocationLifetime,
		LoggerFactory:      pionLogs{cfg.Logger},
		EventHandler: pionturn.EventHandler{
			OnAuth: func(_, _ net.Addr, _, _, _, _ string, verdict bool) {
				if !verdict { // authenticate accepted the username: the password was wrong
					r.stats.forged.Add(1)
				}
			},
			OnAllocationCreated: func(src, _ net.Addr, _, _, _ string, _ net.Addr, _ int) { r.countAddr(src, 1) },
			OnAllocationDeleted: func(src, _ net.Addr, _, _, _ string) { r.countAddr(src, -1) },
			OnPermissionCreated: func(src, _ net.Addr, _, _, _ string, _ net.Addr, peer net.IP) { r.countPerm(src, peer, true) },
			OnPermissionDeleted: func(src, _ net.Addr, _, _, _ string, _ net.Addr, peer net.IP) { r.countPerm(src, peer, false) },
			OnChannelCreated:    func(src, _ net.Addr, _, _, _ string, _, _ net.Addr, _ uint16) { r.countChannel(src, 1) },
			OnChannelDeleted:    func(src, _ net.Addr, _, _, _ string, _, _ net.Addr, _ uint16) { r.countChannel(src, -1) },
		},
	}
	if pc != nil {
		sc.PacketConnConfigs = []pionturn.PacketConnConfig{{
			PacketConn: pc, RelayAddressGenerator: r.alloc, PermissionHandler: r.permit,
		}}
	}
	if ln != nil {
		r.tcp = &listener{Listener: ln, r: r, perAddr: make(map[string]int), conns: make(map[*conn]struct{})}
		sc.ListenerConfigs = []pionturn.ListenerConfig{{
			Listener: r.tcp, RelayAddressGenerator: r.alloc, PermissionHandler: r.permit,
		}}
	}
	if r.srv, err = pionturn.NewServer(sc); err != nil {
		return nil, fmt.Errorf("%w: %w", errConfig, err)
	}
	r.log.Info("turn relay listening", "urls", r.URLs(), "realm", cfg.Realm,
		"ports", fmt.Sprintf("%d-%d", cfg.MinPort, cfg.MaxPort),
		"allow_loopback", cfg.AllowLoopback, "allow_private", cfg.AllowPrivate)
	return r, nil
}

// authenticate is pion's AuthHandler. The user id it returns is the
// whole username, so that the allocator knows the credentials' expiry.
func (r *Relay) authenticate(ra *pionturn.RequestAttributes) (string, []byte, bool) {
	if ra.Realm != r.cfg.Realm {
		r.stats.malformed.Add(1)
		return "", nil, false
	}
	key, cred, err := authKey(r.cfg.Secret, ra.Username, ra.Realm, r.cfg.Now())
	switch {
	case errors.Is(err, errExpired):
		r.stats.expired.Add(1)
		r.log.Debug("turn credentials expired", "user", cred.user, "from", ra.SrcAddr.String())
		return "", nil, false
	case err != nil:
		r.stats.malformed.Add(1)
		return "", nil, false
	}
	return ra.Username, key, true
}

// addrQuota is pion's QuotaHandler: it refuses an Allocate from an address
// holding MaxAllocationsPerAddr. The count follows pion's allocation events;
// requests are checked one at a time per connection (all of UDP is one),
// so concurrent requests from one address over TCP can pass the check
// together: at most MaxConnsPerAddr over the cap.
func (r *Relay) addrQuota(_, _ string, src net.Addr) bool {
	host := hostOf(src)
	r.addrMu.Lock()
	n := r.perAddr[host]
	r.addrMu.Unlock()
	if n < r.cfg.MaxAllocationsPerAddr {
		return true
	}
	r.stats.addrRefused.Add(1)
	r.log.Info("turn allocation refused: address quota", "addr", host, "max", r.cfg.MaxAllocationsPerAddr)
	return false
}

func (r *Relay) countAddr(src net.Addr, d int) {
	host := hostOf(src)
	r.addrMu.Lock()
	defer r.addrMu.Unlock()
	if r.perAddr[host] += d; r.perAddr[host] <= 0 {
		delete(r.perAddr, host)
	}
}

// hostOf is the IP of a UDP or TCP address.
func hostOf(a net.Addr) string {
	switch a := a.(type) {
	case *net.UDPAddr:
		return a.IP.String()
	case *net.TCPAddr:
		return a.IP.String()
	}
	return a.String()
}

// permit is pion's PermissionHandler: CreatePermission, ChannelBind and
// Connect to a peer address pass it.
// One client's requests are handled one at a time, each permission
// granted before the next is checked, so the count is exact.
func (r *Relay) permit(client net.Addr, peer net.IP) bool {
	if !r.cfg.peerAllowed(peer) {
		r.stats.peersRefused.Add(1)
		r.log.Debug("turn permission refused", "client", client.String(), "peer", peer.String())
		return false
	}
	r.permMu.Lock()
	set := r.perms[client.String()]
	_, held := set[peer.String()]
	n, chans := len(set), r.chans[client.String()]
	r.permMu.Unlock()
	if (held || n < r.cfg.MaxPermissions) && chans < r.cfg.MaxChannels {
		return true
	}
	r.stats.permsRefused.Add(1)
	r.log.Debug("turn permission refused: allocation full", "client", client.String(), "max", r.cfg.MaxPermissions)
	return false
}

func (r *Relay) countChannel(client net.Addr, d int) {
	key := client.String()
	r.permMu.Lock()
	defer r.permMu.Unlock()
	if r.chans[key] += d; r.chans[key] <= 0 {
		delete(r.chans, key)
	}
}

func (r *Relay) countPerm(client net.Addr, peer net.IP, created bool) {
	key := client.String()
	r.permMu.Lock()
	defer r.permMu.Unlock()
	set := r.perms[key]
	switch {
	case created && set == nil:
		r.perms[key] = map[string]struct{}{peer.String(): {}}
	case created:
		set[peer.String()] = struct{}{}
	default:
		delete(set, peer.String())
		if len(set) == 0 {
			delete(r.perms, key)
		}
	}
}

// URLs returns the ICE server URLs of the relay as peers reach it at
// PublicIP: "turn:IP:PORT?transport=udp" and "...?transport=tcp".
func (r *Relay) URLs() []string {
	var urls []string
	if r.udp != nil {
		urls = append(urls, r.url(r.udp.LocalAddr(), "udp"))
	}
	if r.tcp != nil {
		urls = append(urls, r.url(r.tcp.Addr(), "tcp"))
	}
	return urls
}

func (r *Relay) url(a net.Addr, transport string) string {
	_, port, _ := net.SplitHostPort(a.String())
	return "turn:" + net.JoinHostPort(r.cfg.PublicIP.String(), port) + "?transport=" + transport
}

// udpAddr returns the address the relay's UDP socket is bound to (nil
// when serving TCP only).
func (r *Relay) udpAddr() net.Addr {
	if r.udp == nil {
		return nil
	}
	return r.udp.LocalAddr()
}

// tcpAddr returns the address the relay's TCP listener is bound to (nil
// when serving UDP only).
func (r *Relay) tcpAddr() net.Addr {
	if r.tcp == nil {
		return nil
	}
	return r.tcp.Addr()
}

// Stats returns a snapshot of the relay's state and counters.
func (r *Relay) Stats() Stats {
	st := Stats{
		Allocations:  r.alloc.live(),
		Allocated:    r.stats.allocations.Load(),
		QuotaRefused: r.stats.quotaRefused.Load(),
		AddrRefused:  r.stats.addrRefused.Load(),
		CapRefused:   r.stats.capRefused.Load(),
		Malformed:    r.stats.malformed.Load(),
		Expired:      r.stats.expired.Load(),
		Forged:       r.stats.forged.Load(),
		PeersRefused: r.stats.peersRefused.Load(),
		PermsRefused: r.stats.permsRefused.Load(),
		TCPRefused:   r.stats.tcpRefused.Load(),
		ConnsRefused: r.stats.connsRefused.Load(),
		ExpiredEnded: r.stats.expiredEnded.Load(),
	}
	if r.tcp != nil {
		st.TCPConns = r.tcp.open()
	}
	return st
}

// Close stops the relay: its sockets, every TCP connection and every
// allocation. It is idempotent.
func (r *Relay) Close() error {
	r.closeOnce.Do(func() {
		// pion closes the UDP socket and the listener (which closes its
		// connections), then the allocations from its own goroutines: the
		// allocator closes what is left now, so none outlives Close.
		r.closeErr = r.srv.Close()
		r.alloc.closeAll()
		r.log.Info("turn relay closed", "allocations", r.alloc.live())
	})
	return r.closeErr
}
