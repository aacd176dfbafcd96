package udp

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"sync"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// clientState is a client's handshake.
type clientState struct {
	host  netip.AddrPort
	id    transport.Peer // the host's
	grant connecttoken.Grant
	salt  [saltSize]byte
	start int64

	mu       sync.Mutex
	c        *conn  // keys agreed (a challenge came), nil before
	response []byte // the response to repeat, once a challenge came
	lastSent int64
	done     chan struct{} // closed once established or failed
	err      error
}

// Dialer dials a host: a transport.HostDialer.
type Dialer struct {
	// Addr is the host's address as the client reaches it.
	Addr string
	// Config is Dial's, its Grant set.
	Config Config
}

// DialHost implements transport.HostDialer.
func (d Dialer) DialHost(ctx context.Context) (transport.Transport, transport.Peer, error) {
	t, err := dialUDP(ctx, d.Addr, d.Config)
	if err != nil {
		return nil, "", err
	}
	return t, t.Host(), nil
}

// Dial connects to the host at addr with cfg.Grant (from the game's
// backend) and returns once the host has admitted this client. It fails
// with ErrHandshakeTimeout, ErrDenied, ErrVersion or ctx's error.
func Dial(ctx context.Context, addr string, cfg Config) (Transport, error) {
	t, err := dialUDP(ctx, addr, cfg)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// dialUDP is Dial.
func dialUDP(ctx context.Context, addr string, cfg Config) (*udpTransport, error) {
	if cfg.SendQueueLen == 0 {
		cfg.SendQueueLen = 64
	}
	if cfg.QueueLen == 0 {
		cfg.QueueLen = 64
	}
	cfg, err := cfg.withDefaults(false)
	if err != nil {
		return nil, err
	}
	if cfg.Grant == nil {
		return nil, fmt.Errorf("%w: no Config.Grant", ErrInvalid)
	}
	grant := *cfg.Grant
	if len(grant.Token) == 0 || len(grant.Token) > connecttoken.MaxSize {
		return nil, fmt.Errorf("%w: a grant's token of %d bytes", ErrInvalid, len(grant.Token))
	}
	ra, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	var la *net.UDPAddr
	if cfg.LocalAddr != "" {
		if la, err = net.ResolveUDPAddr("udp", cfg.LocalAddr); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
	}
	network := "udp4"
	if ra.IP.To4() == nil {
		network = "udp6"
	}
	udp, err := net.ListenUDP(network, la)
	if err != nil {
		return nil, err
	}
	t, err := newTransport(cfg, false, udp, transport.Peer("client-"+strconv.FormatUint(grant.Claims.Client, 10)))
	if err != nil {
		_ = udp.Close()
		return nil, err
	}
	hostName := grant.Claims.Address
	if hostName == "" {
		hostName = addr
	}
	cl := &clientState{host: netip.AddrPortFrom(ra.AddrPort().Addr().Unmap(), ra.AddrPort().Port()),
		id: transport.Peer("udp://" + hostName), grant: grant, start: t.now(), done: make(chan struct{})}
	if _, err := crand.Read(cl.salt[:]); err != nil {
		_ = t.bc.close()
		return nil, err
	}
	t.cl = cl
	t.start()
	cl.mu.Lock()
	cl.sendRequest(t, cl.start)
	cl.mu.Unlock()
	select {
	case <-cl.done:
	case <-ctx.Done():
		cl.fail(ctx.Err())
	}
	if cl.err != nil {
		_ = t.Close()
		return nil, cl.err
	}
	return t, nil
}

// Host is a client's host: "udp://" and the grant's address.
func (t *udpTransport) Host() transport.Peer {
	if t.cl == nil {
		return ""
	}
	return t.cl.id
}

// sendRequest sends the request; cl.mu must be held.
func (cl *clientState) sendRequest(t *udpTransport, now int64) {
	cl.lastSent = now
	t.sendRaw(cl.host, func(b []byte) []byte { return request{salt: cl.salt, token: cl.grant.Token}.Append(b) })
}

// fail ends the handshake with err, unless it ended.
func (cl *clientState) fail(err error) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	select {
	case <-cl.done:
	default:
		cl.err = err
		close(cl.done)
	}
}

// handleHandshake takes a challenge or a version refusal from the host.
func (cl *clientState) handleHandshake(t *udpTransport, b []byte, from netip.AddrPort) {
	if from != cl.host {
		t.c.unknownAddr.Add(1)
		return
	}
	if b[0] == kindVersion {
		if len(b) != 2 {
			t.c.malformed.Add(1)
			return
		}
		cl.mu.Lock()
		handshaking := cl.c == nil
		cl.mu.Unlock()
		if handshaking {
			cl.fail(fmt.Errorf("%w: the host speaks %d, this client %d", ErrVersion, b[1], wireVersion))
		}
		return
	}
	if len(b) != challengeSize {
		t.c.malformed.Add(1)
		return
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.c != nil {
		return // the first authentic challenge holds
	}
	ctr := binary.LittleEndian.Uint64(b[1:])
	ks := deriveKeys(cl.grant.Key, cl.salt, ctr)
	var n [12]byte
	var none [0]byte
	if _, err := ks.s2c.Open(none[:0], nonce(&n, 0), b[1+cookieSize:], b[:1+cookieSize]); err != nil {
		t.c.forged.Add(1)
		return
	}
	c := &conn{id: cl.id, addr: cl.host, send: ks.c2s, recv: ks.s2c, since: t.now()}
	c.lastRecv.Store(c.since)
	c.state.Store(uint32(stateHandshake))
	resp := response{salt: cl.salt, token: cl.grant.Token, cookie: b[1 : 1+cookieSize]}.Append(nil)
	var n0 [12]byte
	cl.response = ks.c2s.Seal(resp, nonce(&n0, 0), nil, resp)
	cl.c = c
	t.mu.Lock()
	t.byAddr[cl.host] = c
	t.mu.Unlock()
	cl.sendResponse(t, t.now())
}

// sendResponse sends the response; cl.mu must be held.
func (cl *clientState) sendResponse(t *udpTransport, now int64) {
	cl.lastSent = now
	r := cl.response
	t.sendRaw(cl.host, func(b []byte) []byte { return append(b, r...) })
}

// established makes the host's connection connected, on its first
// authentic packet, and confirms it to the host at once.
func (cl *clientState) established(t *udpTransport, c *conn) {
	t.mu.Lock()
	if t.closed || !c.state.CompareAndSwap(uint32(stateHandshake), uint32(stateConnected)) {
		t.mu.Unlock()
		return
	}
	t.peers[c.id] = c
	c.lane = t.q.Lane(c.id)
	t.set.EmitLocked(transport.PeerEvent{Kind: transport.PeerConnected, Peer: c.id})
	t.mu.Unlock()
	t.sendSealed(c, kindKeepAlive, nil, sendControl)
	cl.fail(nil)
}

// housekeep repeats the handshake's packet, and gives up after
// Config.HandshakeTimeout.
func (cl *clientState) housekeep(t *udpTransport, now int64) {
	cl.mu.Lock()
	select {
	case <-cl.done:
		cl.mu.Unlock()
		return
	default:
	}
	if now-cl.start > int64(t.cfg.HandshakeTimeout) {
		cl.mu.Unlock()
		cl.fail(ErrHandshakeTimeout)
		return
	}
	due := now-cl.lastSent >= int64(t.cfg.Tuning.Resend)
	keyed := cl.c != nil
	if due && keyed {
		cl.sendResponse(t, now)
	}
	cl.mu.Unlock()
	if due && !keyed {
		cl.mu.Lock()
		cl.sendRequest(t, now)
		cl.mu.Unlock()
	}
}
