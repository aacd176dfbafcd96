//go:build !js

package udp

import (
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/tokenverify"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

var testSecret = []byte("the backend and the host share this secret")

// nextClient numbers the test grants' clients.
var nextClient atomic.Uint64

// listen opens a host on 127.0.0.1 whose tokens name it by its socket's
// address.
func listen(t *testing.T, cfg Config) *udpTransport {
	t.Helper()
	return listenOn(t, "127.0.0.1:0", cfg)
}

func listenOn(t *testing.T, addr string, cfg Config) *udpTransport {
	t.Helper()
	if cfg.Address == "" {
		cfg.Address = "host.test:7777"
	}
	if cfg.tokens == nil {
		v, err := tokenverify.NewVerifier(testSecret, cfg.Address, tokenverify.Config{Now: cfg.Now})
		require.NoError(t, err)
		cfg.tokens = v
	}
	h, err := listenUDP(addr, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	return h
}

// grant mints a grant for a new client of h.
func grant(t *testing.T, h *udpTransport) connecttoken.Grant {
	t.Helper()
	g, err := connecttoken.Mint(testSecret, connecttoken.Claims{
		Client: nextClient.Add(1), Expires: h.cfg.Now().Add(30 * time.Second), Address: h.cfg.Address,
	}, nil)
	require.NoError(t, err)
	return g
}

// dial connects a client to h from local ("" is any address) and waits
// until h has it among its peers.
func dial(t *testing.T, h *udpTransport, local string, cfg Config) *udpTransport {
	t.Helper()
	c, err := dialWith(t, h, local, grant(t, h), cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		ps := h.Peers(nil)
		for _, p := range ps {
			if p == c.Local() {
				return c
			}
		}
		_, err := h.WaitPeers(ctx, len(ps)+1)
		require.NoError(t, err, "the host never had the client")
	}
}

func dialWith(t *testing.T, h *udpTransport, local string, g connecttoken.Grant, cfg Config) (*udpTransport, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg.Grant, cfg.LocalAddr = &g, local
	c, err := dialUDP(ctx, h.LocalAddr().String(), cfg)
	if err == nil {
		t.Cleanup(func() { _ = c.Close() })
	}
	return c, err
}

// eventually polls cond until it holds, for at most 10 s of real time.
func eventually(t *testing.T, cond func() bool, msg string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf(msg, args...)
		}
		time.Sleep(time.Millisecond)
	}
}

// fakeClock is an injected clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_800_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// rawPeer is a UDP socket speaking the wire format by hand: an attacker,
// or a client that stops half-way.
type rawPeer struct {
	t    *testing.T
	conn *net.UDPConn
	to   netip.AddrPort
	buf  []byte
	sent int // bytes
	got  int // bytes
}

func newRaw(t *testing.T, local string, to net.Addr) *rawPeer {
	t.Helper()
	la, err := net.ResolveUDPAddr("udp4", local)
	require.NoError(t, err)
	c, err := net.ListenUDP("udp4", la)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return &rawPeer{t: t, conn: c, to: to.(*net.UDPAddr).AddrPort(), buf: make([]byte, 2048)}
}

func (r *rawPeer) send(b []byte) {
	r.t.Helper()
	_, err := r.conn.WriteToUDPAddrPort(b, r.to)
	require.NoError(r.t, err)
	r.sent += len(b)
}

// read returns the next packet, or nil after wait (a bound, not a
// synchronisation: the tests that call it wait for an answer that either
// comes at once on loopback or never).
func (r *rawPeer) read(wait time.Duration) []byte {
	_ = r.conn.SetReadDeadline(time.Now().Add(wait))
	n, _, err := r.conn.ReadFromUDPAddrPort(r.buf)
	if err != nil {
		return nil
	}
	r.got += n
	return r.buf[:n]
}

// handshake runs the handshake for g up to the host's welcome and returns
// the connection's keys: the host holds it pending until a sealed packet
// comes.
func (r *rawPeer) handshake(g connecttoken.Grant) (keys, bool) {
	r.t.Helper()
	salt := [saltSize]byte{byte(nextClient.Add(1)), 1, 2, 3}
	r.send(request{salt: salt, token: g.Token}.Append(nil))
	ch := r.read(2 * time.Second)
	if len(ch) != challengeSize {
		return keys{}, false
	}
	ks := deriveKeys(g.Key, salt, binary.LittleEndian.Uint64(ch[1:]))
	body := response{salt: salt, token: g.Token, cookie: bytes.Clone(ch[1 : 1+cookieSize])}.Append(nil)
	var n [12]byte
	r.send(ks.c2s.Seal(body, nonce(&n, 0), nil, body))
	w := r.read(2 * time.Second)
	if w == nil || w[0] != kindKeepAlive {
		return keys{}, false
	}
	return ks, true
}

func netipAddr(s string) netip.Addr { return netip.MustParseAddr(s) }

// dialTo connects a new client of h through addr.
func dialTo(t *testing.T, h *udpTransport, addr string) (*udpTransport, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g := grant(t, h)
	c, err := dialUDP(ctx, addr, Config{Grant: &g})
	if err == nil {
		t.Cleanup(func() { _ = c.Close() })
	}
	return c, err
}
