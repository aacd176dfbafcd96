package udp

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"strconv"

	"github.com/rollnet/rollnet/internal/tokenverify"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// The reasons of a denied packet, its one byte of payload.
const (
	deniedFull    = 1
	deniedAddr    = 2
	deniedEvicted = 3
)

func deniedError(p []byte) error {
	if len(p) == 1 {
		switch p[0] {
		case deniedFull:
			return fmt.Errorf("%w: the host is full", ErrDenied)
		case deniedAddr:
			return fmt.Errorf("%w: this address holds its share of the host's slots", ErrDenied)
		case deniedEvicted:
			return fmt.Errorf("%w: %w", ErrDenied, ErrEvicted)
		}
	}
	return ErrDenied
}

// Listen opens a host on addr ("127.0.0.1:7777", ":7777") that admits the
// clients whose connect tokens cfg.TokenSecret's tokens admit.
func Listen(addr string, cfg Config) (Transport, error) {
	t, err := listenUDP(addr, cfg)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// listenUDP is Listen.
func listenUDP(addr string, cfg Config) (*udpTransport, error) {
	cfg, err := cfg.withDefaults(true)
	if err != nil {
		return nil, err
	}
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	udp, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, err
	}
	// A tick's datagrams from every client wait in the socket until the
	// read loop takes them.
	_ = udp.SetReadBuffer(4 << 20)
	_ = udp.SetWriteBuffer(4 << 20)
	if cfg.Address == "" {
		cfg.Address = udp.LocalAddr().String()
	}
	t, err := newTransport(cfg, true, udp, transport.Peer("udp://"+cfg.Address))
	if err != nil {
		_ = udp.Close()
		return nil, err
	}
	t.tokens = cfg.tokens
	if t.tokens == nil {
		v, err := tokenverify.NewVerifier(cfg.TokenSecret, cfg.Address, tokenverify.Config{Now: cfg.Now})
		if err != nil {
			_ = t.bc.close()
			return nil, fmt.Errorf("udp: TokenSecret: %w", err)
		}
		t.tokens = v
	}
	var key [32]byte
	if _, err := crand.Read(key[:]); err != nil {
		_ = t.bc.close()
		return nil, err
	}
	t.cookie = newAEAD(key[:])
	var ctr [8]byte
	if _, err := crand.Read(ctr[:]); err != nil {
		_ = t.bc.close()
		return nil, err
	}
	t.ctr.Store(binary.LittleEndian.Uint64(ctr[:]) >> 1) // room to count
	t.start()
	return t, nil
}

// cookieAD is the additional data a cookie is bound to: the address it
// was issued to, and the request's salt and token.
func cookieAD(b []byte, from netip.AddrPort, salt [saltSize]byte, token []byte) []byte {
	b = addrAD(b, from)
	b = append(b, salt[:]...)
	return append(b, token...)
}

// handleRequest answers a well-formed request whose token the verifier
// accepts with a challenge, keeping nothing.
func (t *udpTransport) handleRequest(b []byte, from netip.AddrPort) {
	r, err := parseRequest(b)
	if err == ErrVersion {
		t.c.versionRefused.Add(1)
		t.sendRaw(from, func(b []byte) []byte { return append(b, kindVersion, wireVersion) })
		return
	}
	if err != nil {
		t.c.malformed.Add(1)
		return
	}
	tk, err := t.tokens.Check(r.token)
	if err != nil {
		t.c.tokensRefused.Add(1)
		return
	}
	t.tokens.Release(tk) // nothing is kept for an unproven address
	key := t.tokens.ClientKey(tk)
	ctr := t.ctr.Add(1)
	ks := deriveKeys(key, r.salt, ctr)
	var ad [16 + 2 + saltSize + connecttoken.MaxSize]byte
	exp := t.now() + int64(t.cfg.Tuning.CookieLifetime)
	t.c.challenges.Add(1)
	t.sendRaw(from, func(b []byte) []byte {
		start := len(b)
		b = append(b, kindChallenge)
		b = binary.LittleEndian.AppendUint64(b, ctr)
		var n [12]byte
		var e [8]byte
		binary.LittleEndian.PutUint64(e[:], uint64(exp))
		b = t.cookie.Seal(b, nonce(&n, ctr), e[:], cookieAD(ad[:0], from, r.salt, r.token))
		return ks.s2c.Seal(b, nonce(&n, 0), nil, b[start:])
	})
}

// openCookie checks a response's cookie: sealed by this host for from,
// the response's salt and token, and not expired. It returns the host's
// salt.
func (t *udpTransport) openCookie(r response, from netip.AddrPort) (uint64, bool) {
	ctr := binary.LittleEndian.Uint64(r.cookie)
	var ad [16 + 2 + saltSize + connecttoken.MaxSize]byte
	var n [12]byte
	var e [8]byte
	if _, err := t.cookie.Open(e[:0], nonce(&n, ctr), r.cookie[8:], cookieAD(ad[:0], from, r.salt, r.token)); err != nil {
		return 0, false
	}
	if int64(binary.LittleEndian.Uint64(e[:])) < t.now() {
		return 0, false
	}
	return ctr, true
}

// handleResponse admits the client of a response whose cookie this host
// issued to its address and whose tag proves the token's key.
func (t *udpTransport) handleResponse(b []byte, from netip.AddrPort) {
	r, body, tag, err := parseResponse(b)
	if err != nil {
		t.c.malformed.Add(1)
		return
	}
	ctr, ok := t.openCookie(r, from)
	if !ok {
		t.c.cookiesRefused.Add(1)
		return
	}
	t.mu.RLock()
	c := t.byAddr[from]
	t.mu.RUnlock()
	if c != nil {
		if c.clientSalt == r.salt && c.hostSalt == ctr && !c.is(stateGone) {
			// Its welcome was lost: another, as small.
			t.sendSealed(c, kindKeepAlive, nil, sendControl)
		}
		return
	}
	tk, err := t.tokens.Check(r.token)
	if err != nil {
		t.c.tokensRefused.Add(1)
		return
	}
	key := t.tokens.ClientKey(tk)
	ks := deriveKeys(key, r.salt, ctr)
	var n [12]byte
	var none [0]byte
	if _, err := ks.c2s.Open(none[:0], nonce(&n, 0), tag, body); err != nil {
		t.tokens.Release(tk)
		t.c.forged.Add(1)
		return
	}
	if err := t.tokens.Redeem(tk, key); err != nil {
		t.tokens.Release(tk)
		t.c.tokensRefused.Add(1)
		return
	}
	c = &conn{
		id: transport.Peer("client-" + strconv.FormatUint(tk.Claims.Client, 10)), addr: from,
		send: ks.s2c, recv: ks.c2s, since: t.now(), clientSalt: r.salt, hostSalt: ctr,
	}
	c.lastRecv.Store(c.since)
	c.state.Store(uint32(statePending))
	t.admit(c)
}

// admit makes c a pending client, or denies it: an address holds at most
// MaxPerAddr connections and the host MaxPeers, and at most MaxPending
// wait. When one is full the oldest pending connection (of the address,
// or of all) makes room, so that the newest, proven client always gets
// in while anything is pending; only connected clients fill a host for
// good.
func (t *udpTransport) admit(c *conn) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	ip := c.addr.Addr()
	if t.perIP[ip] >= t.cfg.MaxPerAddr {
		old := t.oldestPendingLocked(ip, true)
		if old == nil {
			t.mu.Unlock()
			t.c.deniedAddr.Add(1)
			t.sendSealed(c, kindDenied, []byte{deniedAddr}, sendControl)
			return
		}
		t.c.evicted.Add(1)
		t.dropLocked(old, ErrEvicted, true)
	}
	if len(t.pending) >= t.cfg.MaxPending || len(t.byAddr) >= t.cfg.MaxPeers {
		old := t.oldestPendingLocked(ip, false)
		if old == nil {
			t.mu.Unlock()
			t.c.deniedFull.Add(1)
			t.sendSealed(c, kindDenied, []byte{deniedFull}, sendControl)
			return
		}
		t.c.evicted.Add(1)
		t.dropLocked(old, ErrEvicted, true)
	}
	t.byAddr[c.addr] = c
	t.perIP[ip]++
	t.pending = append(t.pending, c)
	t.mu.Unlock()
	t.c.admitted.Add(1)
	t.sendSealed(c, kindKeepAlive, nil, sendControl) // the welcome
}

// oldestPendingLocked is the oldest pending connection, of ip only when
// sameIP.
func (t *udpTransport) oldestPendingLocked(ip netip.Addr, sameIP bool) *conn {
	for _, p := range t.pending {
		if !sameIP || p.addr.Addr() == ip {
			return p
		}
	}
	return nil
}

// confirm makes a pending client connected, on its first authentic
// packet; an older connection of the same client is replaced.
func (t *udpTransport) confirm(c *conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed || !c.state.CompareAndSwap(uint32(statePending), uint32(stateConnected)) {
		return
	}
	for i, p := range t.pending {
		if p == c {
			t.pending = append(t.pending[:i], t.pending[i+1:]...)
			break
		}
	}
	if old := t.peers[c.id]; old != nil && !old.is(stateGone) {
		t.dropLocked(old, transport.ErrReplaced, true)
	}
	t.peers[c.id] = c
	c.lane = t.q.Lane(c.id)
	t.set.EmitLocked(transport.PeerEvent{Kind: transport.PeerConnected, Peer: c.id})
}
