//go:build !js

package quic

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/tokenverify"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

var tokenSecret = []byte("the backend's secret, shared with its hosts")

// tokenHost starts a host that admits only connect tokens minted for it.
func tokenHost(t *testing.T) (*qtransport, *tokenverify.Verifier) {
	t.Helper()
	// The address the backend names is the host's public one; on loopback
	// it is fixed before the socket is, so name it first.
	const addr = "host.test:4433"
	v, err := tokenverify.NewVerifier(tokenSecret, addr, tokenverify.Config{})
	require.NoError(t, err)
	return listen(t, Config{Address: addr, tokens: v}), v
}

func grant(t *testing.T, client uint64, mutate func(*connecttoken.Claims)) *connecttoken.Grant {
	t.Helper()
	c := connecttoken.Claims{Room: "r", Client: client, Expires: time.Now().Add(time.Minute), Address: "host.test:4433"}
	if mutate != nil {
		mutate(&c)
	}
	g, err := connecttoken.Mint(tokenSecret, c, nil)
	require.NoError(t, err)
	return &g
}

func dialGrant(h *qtransport, g *connecttoken.Grant) (*qtransport, error) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := Dial(ctx, h.Addr().String(), Config{PinSHA256: h.CertHash(), Grant: g})
	if err != nil {
		return nil, err
	}
	return c.(*qtransport), nil
}

// A client with a token the host's Verifier accepts is admitted under the
// token's client id; expired, replayed, forged, wrong-address and missing
// tokens fail the handshake (counted, no connection admitted, no hello
// read); a token shown with the wrong key is refused after the handshake
// and may be used again with the right one.
func TestConnectTokens(t *testing.T) {
	h, v := tokenHost(t)
	good := grant(t, 42, nil)
	c, err := dialGrant(h, good)
	require.NoError(t, err)
	defer c.Close()
	require.Equal(t, "client-42", string(c.Local()))
	require.Equal(t, []string{"client-42"}, peerNames(h))

	_, err = dialGrant(h, good)
	require.Error(t, err, "a replayed token")
	require.Equal(t, uint64(1), v.Stats().Replayed)

	_, err = dialGrant(h, grant(t, 43, func(c *connecttoken.Claims) { c.Expires = time.Now().Add(-time.Second) }))
	require.Error(t, err, "an expired token")
	require.Equal(t, uint64(1), v.Stats().Expired)

	forged := *grant(t, 44, nil)
	forged.Token = append([]byte(nil), forged.Token...)
	forged.Token[10] ^= 1 // another client id, same MAC
	_, err = dialGrant(h, &forged)
	require.Error(t, err, "a forged token")
	require.Equal(t, uint64(1), v.Stats().Forged)

	_, err = dialGrant(h, grant(t, 45, func(c *connecttoken.Claims) { c.Address = "other.test:4433" }))
	require.Error(t, err, "a token for another host")
	require.Equal(t, uint64(1), v.Stats().WrongAddress)

	_, err = dialGrant(h, nil)
	require.Error(t, err, "no token")
	require.Equal(t, uint64(1), h.Stats().TokensMissing)

	require.Equal(t, uint64(1), h.Stats().PeersAdmitted)
	require.Zero(t, h.Stats().HellosBad, "a refused token reached the hello")

	wrongKey := *grant(t, 46, nil)
	rightKey := wrongKey.Key
	wrongKey.Key[0] ^= 1
	_, err = dialGrant(h, &wrongKey)
	require.ErrorIs(t, err, ErrRefused, "a token shown with another key")
	require.Equal(t, uint64(1), v.Stats().WrongKey)
	wrongKey.Key = rightKey
	require.Eventually(t, func() bool { return v.Stats().Released == 1 }, wait, time.Millisecond,
		"the reservation of the refused connection was never released")
	c46, err := dialGrant(h, &wrongKey)
	require.NoError(t, err, "the same token with its key, once the refused connection ended")
	defer c46.Close()
	require.Equal(t, []string{"client-42", "client-46"}, peerNames(h))
}

// A host's Admit refuses a client by its token's claims at once: Dial
// returns ErrRefused with the host's reason, nothing is admitted, and the
// token stays unused (the same one is admitted once Admit agrees).
// Admit without Tokens is a config error.
func TestAdmitRefuses(t *testing.T) {
	const addr = "host.test:4433"
	v, err := tokenverify.NewVerifier(tokenSecret, addr, tokenverify.Config{})
	require.NoError(t, err)
	var open atomic.Bool
	h := listen(t, Config{Address: addr, tokens: v, Admit: func(c connecttoken.Claims) error {
		if c.Room != "r" || !open.Load() {
			return errors.New("draining: ask again")
		}
		return nil
	}})
	g := grant(t, 7, nil)
	_, err = dialGrant(h, g)
	require.ErrorIs(t, err, ErrRefused)
	require.ErrorContains(t, err, "draining: ask again")
	require.Equal(t, uint64(1), h.Stats().ConnsRefusedAdmit)
	require.Zero(t, h.Stats().PeersAdmitted)
	require.Zero(t, v.Stats().Redeemed, "a refused client's token was used")

	open.Store(true)
	require.Eventually(t, func() bool { return v.Stats().Released == 1 }, wait, time.Millisecond,
		"the reservation of the refused connection was never released")
	c, err := dialGrant(h, g)
	require.NoError(t, err, "the same token, once Admit agrees")
	defer c.Close()
	require.Equal(t, []string{"client-7"}, peerNames(h))

	_, err = Listen("127.0.0.1:0", Config{Admit: func(connecttoken.Claims) error { return nil }})
	require.ErrorIs(t, err, rollnet.ErrConfig)
}

// A client who reconnects with a new token is the same peer: the old
// connection is gone (transport.ErrReplaced), the new one is heard under the same id.
func TestTokenReconnectIsTheSamePeer(t *testing.T) {
	h, _ := tokenHost(t)
	first, err := dialGrant(h, grant(t, 7, nil))
	require.NoError(t, err)
	defer first.Close()
	second, err := dialGrant(h, grant(t, 7, nil))
	require.NoError(t, err)
	defer second.Close()
	require.Equal(t, first.Local(), second.Local())
	require.Equal(t, []string{"client-7"}, peerNames(h))
	var gone []transport.PeerEvent
	for _, e := range h.Events(nil) {
		if e.Kind == transport.PeerGone {
			gone = append(gone, e)
		}
	}
	require.Len(t, gone, 1)
	require.ErrorIs(t, gone[0].Err, transport.ErrReplaced)
	require.NoError(t, second.Send(second.Host(), []byte("again")))
	got, from := receiveWithin(t, h, "the reconnected client")
	require.Equal(t, "again", string(got))
	require.Equal(t, second.Local(), from)
}

func peerNames(h *qtransport) []string {
	var s []string
	for _, p := range h.Peers(nil) {
		s = append(s, string(p))
	}
	return s
}

// Issue 40 item 2: a copy of a connect token (read off the wire in the
// owner's ClientHello) was held against its owner: the first connection
// to present a token reserved it until that connection ended, so a copier
// that presented it first and said nothing (again within 20 ms of each
// release) had the owner refused 19 of 19 dials over 10 s with "tls:
// internal error". Now presenting takes nothing: 8 copiers' connections
// present the owner's token and say nothing, a ninth says hello and is
// refused for its key, and the owner is admitted at its first dial; the
// owner's dial with the token, once used, says the host refused its
// connect token at the handshake.
func TestCopiedTokenNotHeld(t *testing.T) {
	h, v := tokenHost(t)
	owner := grant(t, 50, nil)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	copiers := 0
	for i := range 8 {
		conn, err := rawDial(ctx, h, fmt.Sprintf("127.0.1.%d", i+1), alpnProtocol, tokenALPNPrefix+string(owner.Token))
		if err != nil {
			t.Logf("copier %d: %v", i, err)
			continue
		}
		copiers++
		defer conn.CloseWithError(0, "")
	}
	require.NotZero(t, copiers)
	copied := *owner
	copied.Key[0] ^= 1
	_, err := dialGrant(h, &copied)
	require.ErrorIs(t, err, ErrRefused, "a copier that says hello")
	require.ErrorContains(t, err, "wrong client key")

	c, err := dialGrant(h, owner)
	require.NoError(t, err, "the owner, while %d copiers present its token", copiers)
	defer c.Close()
	require.Equal(t, "client-50", string(c.Local()))

	_, err = dialGrant(h, owner)
	t.Logf("the owner's token, used: %v", err)
	require.ErrorIs(t, err, ErrRefused)
	require.ErrorContains(t, err, "connect token")
	st := v.Stats()
	t.Logf("verifier: %d presented, %d redeemed, %d wrong key, %d replayed", st.Reserved, st.Redeemed, st.WrongKey, st.Replayed)
	require.Equal(t, uint64(1), st.Redeemed)
	require.Equal(t, uint64(1), st.WrongKey)
}
