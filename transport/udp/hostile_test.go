//go:build !js

package udp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// receiveFrom polls r for one datagram from from.
func receiveFrom(t *testing.T, r *udpTransport, from transport.Peer) []byte {
	t.Helper()
	buf := make([]byte, transport.MaxDatagram)
	var got []byte
	eventually(t, func() bool {
		n, p, err := r.Receive(buf)
		if err == nil && p == from {
			got = bytes.Clone(buf[:n])
			return true
		}
		return false
	}, "nothing from %s", from)
	return got
}

// Sealed packets replayed, too old, forged, malformed or from an address
// with no connection are counted and dropped; the connection carries on.
func TestReplayedForgedDropped(t *testing.T) {
	h := listen(t, Config{})
	c := dial(t, h, "127.0.0.2:0", Config{})
	hc := c.cl.c
	inject := func(b []byte) {
		require.NoError(t, c.bc.writeTo(b, c.cl.host))
	}
	pkt := sealPacket(nil, hc.send, new([12]byte), kindPayload, hc.seq.Add(1), []byte("once"))
	inject(pkt)
	inject(pkt)
	require.Equal(t, []byte("once"), receiveFrom(t, h, c.Local()))
	eventually(t, func() bool { return h.Stats().Replayed == 1 }, "the copy was not counted as replayed")

	hc.seq.Add(1000)
	inject(sealPacket(nil, hc.send, new([12]byte), kindPayload, hc.seq.Add(1), []byte("new")))
	require.Equal(t, []byte("new"), receiveFrom(t, h, c.Local()))
	inject(sealPacket(nil, hc.send, new([12]byte), kindPayload, hc.seq.Load()-windowBits, []byte("never sent, too old")))
	eventually(t, func() bool { return h.Stats().Replayed == 2 }, "an old sequence number was not refused")

	forged := sealPacket(nil, hc.send, new([12]byte), kindPayload, hc.seq.Add(1), []byte("forged"))
	forged[len(forged)-1] ^= 1
	inject(forged)
	eventually(t, func() bool { return h.Stats().Forged == 1 }, "a forged packet was not counted")
	inject([]byte{99, 1, 2})
	inject(make([]byte, 1400))
	eventually(t, func() bool { return h.Stats().Malformed == 2 }, "malformed packets not counted")

	stranger := newRaw(t, "127.0.0.3:0", h.LocalAddr())
	stranger.send(pkt)
	eventually(t, func() bool { return h.Stats().UnknownAddr == 1 }, "a sealed packet from a stranger not counted")

	require.NoError(t, c.Send(h.Local(), []byte("still here")))
	require.Equal(t, []byte("still here"), receiveFrom(t, h, c.Local()))
	_, _, err := h.Receive(make([]byte, transport.MaxDatagram))
	require.ErrorIs(t, err, transport.ErrNoPacket, "nothing else came through")
}

// A copy of a connect token, presented from another address without its
// key, neither admits the copier nor burns the token for its owner.
func TestCopiedTokenNotHeld(t *testing.T) {
	h := listen(t, Config{})
	g := grant(t, h)
	copier := newRaw(t, "127.0.0.2:0", h.LocalAddr())
	stolen := connecttoken.Grant{Token: g.Token} // the key is not on the wire
	for range 3 {
		_, ok := copier.handshake(stolen)
		require.False(t, ok, "a copier was admitted")
	}
	require.Equal(t, uint64(3), h.Stats().Forged, "each response without the key is counted")
	require.Equal(t, uint64(3), h.Stats().Challenges)
	c, err := dialWith(t, h, "127.0.0.3:0", g, Config{})
	require.NoError(t, err, "the owner is admitted")
	require.NoError(t, c.Send(h.Local(), []byte("mine")))
	require.Equal(t, []byte("mine"), receiveFrom(t, h, c.Local()))
	require.Equal(t, uint64(1), h.tokens.Stats().Redeemed)
}

// A used token is refused: the client hears nothing and says so.
func TestUsedTokenRefused(t *testing.T) {
	h := listen(t, Config{})
	g := grant(t, h)
	c, err := dialWith(t, h, "", g, Config{})
	require.NoError(t, err)
	require.NoError(t, c.Close())
	_, err = dialWith(t, h, "", g, Config{HandshakeTimeout: 300 * time.Millisecond})
	require.ErrorIs(t, err, ErrHandshakeTimeout)
	require.NotZero(t, h.Stats().TokensRefused)
}

// An address the host has not validated gets back at most what it sent,
// and no state: requests with good, forged or no tokens, another
// version, responses with cookies it did not get.
func TestAmplificationBound(t *testing.T) {
	h := listen(t, Config{})
	r := newRaw(t, "127.0.0.2:0", h.LocalAddr())
	g := grant(t, h)
	forged := bytes.Clone(g.Token)
	forged[len(forged)-1] ^= 1
	var salt [saltSize]byte
	for i := range 20 {
		salt[0] = byte(i)
		r.send(request{salt: salt, token: g.Token}.Append(nil))
		r.send(request{salt: salt, token: forged}.Append(nil))
		r.send(request{salt: salt}.Append(nil))
		old := request{salt: salt, token: g.Token}.Append(nil)
		old[1] = wireVersion + 1
		r.send(old)
		r.send(old[:40]) // short: no answer
		resp := response{salt: salt, token: g.Token, cookie: make([]byte, cookieSize)}.Append(nil)
		r.send(append(resp, make([]byte, tagSize)...))
	}
	replies := 0
	for r.read(300*time.Millisecond) != nil {
		replies++
	}
	require.Equal(t, 40, replies, "a challenge to each good request, a version refusal to each old one")
	require.LessOrEqual(t, r.got, r.sent/5, "bytes back against bytes sent")
	t.Logf("sent %d B, got %d B back (%.3fx)", r.sent, r.got, float64(r.got)/float64(r.sent))
	st := h.Stats()
	require.Equal(t, uint64(20), st.Challenges)
	require.Equal(t, uint64(40), st.TokensRefused)
	require.Equal(t, uint64(20), st.VersionRefused)
	require.Equal(t, uint64(20), st.CookiesRefused)
	ts := h.tokens.Stats()
	require.Equal(t, ts.Reserved, ts.Released, "no presentation is kept for an unproven address")
	h.mu.RLock()
	defer h.mu.RUnlock()
	require.Empty(t, h.byAddr, "no state for an unproven address")
}

// Squatters that complete the handshake and never speak, from several
// addresses, hold at most their share and are evicted oldest first: an
// honest client is admitted every time.
func TestPendingSquattersEvicted(t *testing.T) {
	h := listen(t, Config{MaxPerAddr: 2, MaxPending: 4, MaxPeers: 16})
	squat := func(addr string, n int) {
		for range n {
			r := newRaw(t, addr, h.LocalAddr())
			_, ok := r.handshake(grant(t, h))
			require.True(t, ok, "a squatter with a good token gets the welcome")
		}
	}
	for i := range 5 {
		squat("127.0.0.2:0", 4)
		squat("127.0.0.4:0", 4)
		squat("127.0.0.5:0", 4)
		c := dial(t, h, fmt.Sprintf("127.0.0.%d:0", 10+i), Config{})
		require.NoError(t, c.Send(h.Local(), []byte{byte(i)}))
		require.Equal(t, []byte{byte(i)}, receiveFrom(t, h, c.Local()), "honest client %d", i)
		h.mu.RLock()
		pending, perIP := len(h.pending), h.perIP[netipAddr("127.0.0.2")]
		h.mu.RUnlock()
		require.LessOrEqual(t, pending, 4)
		require.LessOrEqual(t, perIP, 2)
	}
	require.NotZero(t, h.Stats().Evicted)
	require.Len(t, h.Peers(nil), 5, "the five honest clients")

	// An evicted squatter is told so.
	r := newRaw(t, "127.0.0.6:0", h.LocalAddr())
	_, ok := r.handshake(grant(t, h))
	require.True(t, ok)
	squat("127.0.0.6:0", 2)
	d := r.read(2 * time.Second)
	require.NotNil(t, d, "the evicted squatter heard nothing")
	require.Equal(t, byte(kindDenied), d[0])
}

// Connected clients fill an address's share and the host for good: the
// next one is denied, and says why.
func TestDenied(t *testing.T) {
	h := listen(t, Config{MaxPerAddr: 2, MaxPeers: 3})
	dial(t, h, "127.0.0.2:0", Config{})
	dial(t, h, "127.0.0.2:0", Config{})
	_, err := dialWith(t, h, "127.0.0.2:0", grant(t, h), Config{})
	require.ErrorIs(t, err, ErrDenied)
	require.ErrorContains(t, err, "share")
	dial(t, h, "127.0.0.3:0", Config{})
	_, err = dialWith(t, h, "127.0.0.4:0", grant(t, h), Config{})
	require.ErrorIs(t, err, ErrDenied)
	require.ErrorContains(t, err, "full")
	st := h.Stats()
	require.Equal(t, uint64(1), st.DeniedAddr)
	require.Equal(t, uint64(1), st.DeniedFull)
}

// A client of another version is refused clearly on both sides.
func TestVersionRefused(t *testing.T) {
	fake, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	require.NoError(t, err)
	defer fake.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		n, from, err := fake.ReadFromUDPAddrPort(buf)
		if err != nil || n != requestSize {
			return
		}
		_, _ = fake.WriteToUDPAddrPort([]byte{kindVersion, wireVersion + 1}, from)
	}()
	g, err := connecttoken.Mint(testSecret, connecttoken.Claims{Client: 1, Expires: time.Now().Add(time.Minute), Address: "x:1"}, nil)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = dialUDP(ctx, fake.LocalAddr().String(), Config{Grant: &g})
	require.ErrorIs(t, err, ErrVersion)
	<-done
}

// Timeouts run on the injected clock: a silent client is gone after
// Timeout, a pending one after PendingTimeout.
func TestTimeouts(t *testing.T) {
	clk := newFakeClock()
	h := listen(t, Config{Now: clk.Now})
	c := dial(t, h, "", Config{Now: clk.Now})
	r := newRaw(t, "127.0.0.2:0", h.LocalAddr())
	_, ok := r.handshake(grant(t, h))
	require.True(t, ok)
	require.NoError(t, c.bc.close()) // the client vanishes without a word
	h.Events(nil)

	clk.Add(defaultPendingTimeout + time.Millisecond)
	h.housekeep()
	require.Equal(t, uint64(1), h.Stats().TimedOut, "the pending client")
	require.Len(t, h.Peers(nil), 1, "the connected one is not silent for long enough yet")

	clk.Add(defaultTimeout)
	h.housekeep()
	require.Empty(t, h.Peers(nil))
	require.Contains(t, h.Events(nil), transport.PeerEvent{Kind: transport.PeerGone, Peer: c.Local(), Err: ErrTimeout})
	require.ErrorIs(t, h.Send(c.Local(), []byte("x")), transport.ErrPeerGone)
	h.mu.RLock()
	defer h.mu.RUnlock()
	require.Empty(t, h.byAddr)
}

// A closing side tells the other, which reports the peer gone.
func TestDisconnect(t *testing.T) {
	h := listen(t, Config{})
	a := dial(t, h, "127.0.0.2:0", Config{})
	b := dial(t, h, "127.0.0.3:0", Config{})
	h.Events(nil)
	require.NoError(t, a.Close())
	gone := transport.PeerEvent{Kind: transport.PeerGone, Peer: a.Local(), Err: transport.ErrPeerClosed}
	var evs []transport.PeerEvent
	eventually(t, func() bool { evs = h.Events(evs); return containsEvent(evs, gone) }, "the host never saw the client go")
	require.NoError(t, h.Close())
	gone = transport.PeerEvent{Kind: transport.PeerGone, Peer: b.Host(), Err: transport.ErrPeerClosed}
	evs = nil
	eventually(t, func() bool { evs = b.Events(evs); return containsEvent(evs, gone) }, "the client never saw the host go")
	require.ErrorIs(t, b.Send(b.Host(), []byte("x")), transport.ErrPeerGone)
}

func containsEvent(evs []transport.PeerEvent, e transport.PeerEvent) bool {
	for _, x := range evs {
		if x.Kind == e.Kind && x.Peer == e.Peer && errors.Is(x.Err, e.Err) {
			return true
		}
	}
	return false
}

// The same client connecting again (a new token, a new address) replaces
// its old connection.
func TestReplaced(t *testing.T) {
	h := listen(t, Config{})
	mint := func() connecttoken.Grant {
		g, err := connecttoken.Mint(testSecret, connecttoken.Claims{Client: 4242, Expires: time.Now().Add(time.Minute), Address: h.cfg.Address}, nil)
		require.NoError(t, err)
		return g
	}
	a, err := dialWith(t, h, "127.0.0.2:0", mint(), Config{})
	require.NoError(t, err)
	require.NoError(t, a.Send(h.Local(), []byte("a")))
	require.Equal(t, []byte("a"), receiveFrom(t, h, a.Local()))
	b, err := dialWith(t, h, "127.0.0.3:0", mint(), Config{})
	require.NoError(t, err)
	require.NoError(t, b.Send(h.Local(), []byte("b")))
	require.Equal(t, []byte("b"), receiveFrom(t, h, b.Local()))
	require.Contains(t, h.Events(nil), transport.PeerEvent{Kind: transport.PeerGone, Peer: a.Local(), Err: transport.ErrReplaced})
	require.NoError(t, h.Send(b.Local(), []byte("to b")))
	require.Equal(t, []byte("to b"), receiveFrom(t, b, h.Local()))
}
