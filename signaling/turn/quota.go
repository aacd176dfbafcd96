package turn

import (
	"fmt"
	"net"
	"sync"
	"sync/atomic"

	pionturn "github.com/pion/turn/v5"
)

// allocator hands out relay sockets for pion, enforcing the allocation
// caps where the socket is made: the count and the socket are one, so
// concurrent Allocate requests (over many TCP connections) cannot overshoot
// a cap, and an allocation pion fails to finish frees its slot when its
// socket closes.
type allocator struct {
	r    *Relay
	next pionturn.RelayAddressGenerator // the port range

	mu      sync.Mutex
	total   int
	perUser map[string]int
	conns   map[*relayConn]struct{}
}

func (a *allocator) Validate() error { return a.next.Validate() }

func (a *allocator) AllocatePacketConn(c pionturn.AllocateListenerConfig) (net.PacketConn, net.Addr, error) {
	cred, err := parseUsername(c.UserID)
	if err != nil { // cannot happen: the user id is the username authKey parsed
		return nil, nil, err
	}
	a.mu.Lock()
	switch {
	case a.total >= a.r.cfg.MaxAllocations:
		a.mu.Unlock()
		a.r.stats.capRefused.Add(1)
		a.r.log.Warn("turn allocation refused: relay full", "user", cred.user, "max", a.r.cfg.MaxAllocations)
		return nil, nil, fmt.Errorf("%w: %d allocations in total", errQuota, a.r.cfg.MaxAllocations)
	case a.perUser[cred.user] >= a.r.cfg.MaxAllocationsPerUser:
		a.mu.Unlock()
		a.r.stats.quotaRefused.Add(1)
		a.r.log.Info("turn allocation refused: user quota", "user", cred.user, "max", a.r.cfg.MaxAllocationsPerUser)
		return nil, nil, fmt.Errorf("%w: %d allocations for user %q", errQuota, a.r.cfg.MaxAllocationsPerUser, cred.user)
	}
	a.total++
	a.perUser[cred.user]++
	a.mu.Unlock()

	pc, addr, err := a.next.AllocatePacketConn(c)
	if err != nil {
		a.release(cred.user, nil)
		a.r.log.Warn("turn relay socket", "user", cred.user, "err", err)
		return nil, nil, err
	}
	rc := &relayConn{PacketConn: pc, a: a, cred: cred}
	a.mu.Lock()
	a.conns[rc] = struct{}{}
	a.mu.Unlock()
	a.r.stats.allocations.Add(1)
	a.r.log.Debug("turn allocation", "user", cred.user, "relay", addr.String())
	return rc, addr, nil
}

func (a *allocator) release(user string, rc *relayConn) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.conns, rc)
	a.total--
	if a.perUser[user]--; a.perUser[user] <= 0 {
		delete(a.perUser, user)
	}
}

// closeAll closes every relay socket.
func (a *allocator) closeAll() { closeAll(&a.mu, a.conns) }

// live returns the allocations holding a relay socket.
func (a *allocator) live() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.total
}

func (a *allocator) AllocateListener(pionturn.AllocateListenerConfig) (net.Listener, net.Addr, error) {
	a.r.stats.tcpRefused.Add(1)
	return nil, nil, errTCPRelay
}

func (a *allocator) AllocateConn(pionturn.AllocateConnConfig) (net.Conn, error) {
	a.r.stats.tcpRefused.Add(1)
	return nil, errTCPRelay
}

// relayConn is an allocation's relay socket. It frees the allocation's
// slot when closed, and stops relaying once the credentials it was made
// with expire: the next packet either way ends the allocation, whatever
// lifetime the client asked for.
type relayConn struct {
	net.PacketConn
	a     *allocator
	cred  credential
	once  sync.Once
	ended atomic.Bool
}

func (c *relayConn) expired() bool {
	if c.a.r.cfg.Now().Before(c.cred.expiry) {
		return false
	}
	if c.ended.CompareAndSwap(false, true) {
		c.a.r.stats.expiredEnded.Add(1)
		c.a.r.log.Info("turn allocation ended: credentials expired", "user", c.cred.user)
		_ = c.Close()
	}
	return true
}

// ReadFrom reads what peers send to the relay address; pion ends the
// allocation when it returns an error.
func (c *relayConn) ReadFrom(b []byte) (int, net.Addr, error) {
	n, addr, err := c.PacketConn.ReadFrom(b)
	if err == nil && c.expired() {
		return 0, nil, errExpired
	}
	return n, addr, err
}

// WriteTo relays what the client sends to a peer.
func (c *relayConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	if c.expired() {
		return 0, errExpired
	}
	return c.PacketConn.WriteTo(b, addr)
}

func (c *relayConn) Close() error {
	err := c.PacketConn.Close()
	c.once.Do(func() { c.a.release(c.cred.user, c) })
	return err
}
