//go:build !js

package udp

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/tokenverify"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// FuzzHandle feeds any bytes to a host's and a client's packet handling,
// from a connected client's address and from a stranger's: never a panic,
// and nothing but what a sealed packet under the right keys carries
// reaches Receive.
func FuzzHandle(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	v, err := tokenverify.NewVerifier(testSecret, "host.test:1", tokenverify.Config{Now: clock})
	require.NoError(f, err)
	g, err := connecttoken.Mint(testSecret, connecttoken.Claims{Client: 7, Expires: now.Add(time.Minute), Address: "host.test:1"}, nil)
	require.NoError(f, err)
	udpH, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	require.NoError(f, err)
	cfg, err := Config{tokens: v, Now: clock}.withDefaults(true)
	require.NoError(f, err)
	h, err := newTransport(cfg, true, udpH, "udp://host.test:1") // it takes the socket over
	require.NoError(f, err)
	f.Cleanup(func() { _ = h.bc.close() })
	h.tokens, h.cookie = v, newAEAD(make([]byte, 32))
	// The read loop is not running: handle is called directly, as it would.
	ks := testKeys()
	peer := netip.MustParseAddrPort("127.0.0.2:5000")
	c := &conn{id: "client-7", addr: peer, send: ks.s2c, recv: ks.c2s}
	c.state.Store(uint32(statePending))
	h.byAddr[peer] = c
	h.pending = append(h.pending, c)
	h.perIP[peer.Addr()] = 1

	f.Add(request{token: g.Token}.Append(nil), false)
	f.Add(append(response{token: g.Token, cookie: make([]byte, cookieSize)}.Append(nil), make([]byte, tagSize)...), false)
	f.Add(sealPacket(nil, ks.c2s, new([12]byte), kindPayload, 1, []byte("hi")), false)
	f.Add(sealPacket(nil, ks.c2s, new([12]byte), kindDisconnect, 2, nil), true)
	f.Add(sealPacket(nil, ks.c2s, new([12]byte), kindPing, 3, appendPing(nil, 1)), false)
	f.Add(sealPacket(nil, ks.c2s, new([12]byte), kindPong, 4, appendPong(nil, 1, 0)), false)
	f.Add([]byte{kindChallenge, 0, 0}, true)
	buf := make([]byte, 2048)
	f.Fuzz(func(t *testing.T, b []byte, stranger bool) {
		from := peer
		if stranger {
			from = netip.MustParseAddrPort("127.0.0.3:6000")
		}
		h.handle(append([]byte(nil), b...), from, 0)
		for {
			n, _, err := h.Receive(buf)
			if err != nil {
				break
			}
			require.LessOrEqual(t, n, len(b)-overhead, "a datagram larger than its packet")
		}
		h.out.mu.Lock()
		h.out.cur.n = 0 // what the write loop would have sent
		h.out.mu.Unlock()
	})
}

// FuzzClientHandle is FuzzHandle for a client in its handshake: any bytes
// from its host's address or another, never a panic, and no connection
// without a challenge sealed under the grant's key.
func FuzzClientHandle(f *testing.F) {
	g, err := connecttoken.Mint(testSecret, connecttoken.Claims{Client: 7, Expires: time.Now().Add(time.Minute), Address: "host.test:1"}, nil)
	require.NoError(f, err)
	cfg, err := Config{}.withDefaults(false)
	require.NoError(f, err)
	host := netip.MustParseAddrPort("127.0.0.2:5000")
	f.Add([]byte{kindVersion, 9}, false)
	f.Add(make([]byte, challengeSize), false)
	f.Add(sealPacket(nil, testKeys().s2c, new([12]byte), kindKeepAlive, 1, nil), false)
	f.Fuzz(func(t *testing.T, b []byte, stranger bool) {
		udpC, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		require.NoError(t, err)
		c, err := newTransport(cfg, false, udpC, "client-7") // it takes the socket over
		require.NoError(t, err)
		defer c.bc.close()
		c.cl = &clientState{host: host, id: "udp://host.test:1", grant: g, done: make(chan struct{})}
		from := host
		if stranger {
			from = netip.MustParseAddrPort("127.0.0.3:6000")
		}
		c.handle(append([]byte(nil), b...), from, 0)
		c.cl.mu.Lock()
		keyed := c.cl.c != nil
		c.cl.mu.Unlock()
		require.False(t, keyed, "keys agreed on a challenge not sealed under the grant's key")
	})
}
