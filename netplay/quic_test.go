//go:build !js

package netplay_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport/quic"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// quicHostAddr is the address the test host's connect tokens name (its
// public one; the socket is on loopback).
const quicHostAddr = "host.test:4433"

var quicSecret = []byte("the backend's secret, shared with its hosts")

// quicHost is a listen host (slot 0) on a QUIC socket on loopback that
// admits only connect tokens minted for it, and its URL.
func quicHost(t *testing.T) (*netplay.Match[World, Buttons], quic.Transport, string) {
	t.Helper()
	qt, err := quic.Listen("127.0.0.1:0", quic.Config{Address: quicHostAddr, TokenSecret: quicSecret})
	require.NoError(t, err)
	h, err := netplay.Host[World, Buttons](netplay.Config{Transport: qt, Players: 2, LocalPlayers: 1, Name: "court"}, simulate)
	if err != nil {
		_ = qt.Close()
		require.NoError(t, err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h, qt, "quic://" + qt.Addr().String()
}

func quicGrant(t *testing.T, client uint64) *connecttoken.Grant {
	t.Helper()
	g, err := connecttoken.Mint(quicSecret, connecttoken.Claims{
		Room: "court", Client: client, Expires: time.Now().Add(time.Minute), Address: quicHostAddr,
	}, nil)
	require.NoError(t, err)
	return &g
}

// tickUntil calls AdvanceFrame on every match 60 times a second (the host
// pressing +1) until done holds or an error ends one, for at most 10 s.
func tickUntil(t *testing.T, what string, done func() bool, ms ...*netplay.Match[World, Buttons]) error {
	t.Helper()
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	deadline := time.Now().Add(10 * time.Second)
	for !done() {
		require.True(t, time.Now().Before(deadline), "after 10 s: %s", what)
		<-tick.C
		for _, m := range ms {
			if _, err := m.AdvanceFrame(1); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestConnectQUIC: a client dials a token-gated host directly over QUIC
// (its certificate pinned, its connect token presented), hears its hello
// (the host's name) and plays: the host's inputs reach its state. The
// same call with another pin, without a token, or with a bad URL fails
// saying why.
func TestConnectQUIC(t *testing.T) {
	h, qt, url := quicHost(t)
	c, err := netplay.Connect[World, Buttons](netplay.Config{Players: 2, Name: "alice", Room: "court", Timeout: 10 * time.Second,
		QUIC: netplay.QUICHost{URL: url, PinSHA256: qt.CertHash(), Grant: quicGrant(t, 7)}}, simulate)
	require.NoError(t, err)
	defer c.Close()
	err = tickUntil(t, "the client plays the host's frames, its name heard", func() bool {
		return c.State() != nil && c.State().X[0] > 30 && h.Name(1) == "alice" // (the hello may come after the frames)
	}, h, c)
	require.NoError(t, err)
	require.Equal(t, netplay.ModeClient, c.Mode())
	require.Equal(t, 1, c.Seat())
	require.Equal(t, "court", c.Name(0), "the host's name, from its hello")
	require.Equal(t, "alice", h.Name(1))
	require.Equal(t, "court", c.Room())
	ct, ok := c.Transport().(quic.Transport)
	require.True(t, ok, "the match's transport is QUIC's")
	require.Equal(t, "quic://"+quicHostAddr, string(ct.Host()))
	require.Zero(t, c.Stats().Placement, "not a fleet's placement")
	// The route names the path and the address at the other end; QUIC
	// measures its round trip.
	cs := c.Stats()
	require.Equal(t, "direct quic to "+qt.Addr().String(), cs.Route)
	require.Positive(t, cs.NetworkRTT)
	require.Regexp(t, `^direct quic to 127\.0\.0\.1:\d+$`, h.Stats().Route)

	for name, tc := range map[string]struct {
		host netplay.QUICHost
		want error
	}{
		"another pin": {netplay.QUICHost{URL: url, PinSHA256: [32]byte{1}, Grant: quicGrant(t, 8)}, quic.ErrPinMismatch},
		"no token":    {netplay.QUICHost{URL: url, PinSHA256: qt.CertHash()}, nil},
	} {
		t.Run(name, func(t *testing.T) {
			m, err := netplay.Connect[World, Buttons](netplay.Config{Players: 2, Timeout: 5 * time.Second, QUIC: tc.host}, simulate)
			require.NoError(t, err)
			defer m.Close()
			err = tickUntil(t, "the dial fails", func() bool { return false }, h, m)
			require.ErrorIs(t, err, netplay.ErrHostUnreachable)
			require.Contains(t, err.Error(), url)
			if tc.want != nil {
				require.ErrorIs(t, err, tc.want)
			}
			require.Nil(t, m.State(), "no session")
		})
	}
	require.Equal(t, uint64(1), qt.Stats().TokensMissing)
	require.Equal(t, uint64(1), qt.Stats().PeersAdmitted, "only the client with a token")
}

// TestConnectQUICConfig: a URL that is not quic://HOST:PORT, or a Signal
// or Transport beside it, or QUIC given to another constructor than
// Connect, is ErrConfig at once.
func TestConnectQUICConfig(t *testing.T) {
	for _, u := range []string{"", "127.0.0.1:4433", "ws://127.0.0.1:4433", "quic://127.0.0.1", "quic://:4433", "quic://127.0.0.1:4433x", "quic://127.0.0.1:0",
		"quic://127.0.0.1:4433/room", "quic://127.0.0.1:4433?token=secret", "quic://u@127.0.0.1:4433"} {
		h := netplay.QUICHost{URL: u, PinSHA256: [32]byte{1}} // a URL of "" is still a QUIC host's
		_, err := netplay.Connect[World, Buttons](netplay.Config{Players: 2, QUIC: h}, simulate)
		require.ErrorIs(t, err, rollnet.ErrConfig, u)
		require.NotContains(t, err.Error(), "secret", "the URL's query is redacted")
	}
	h := netplay.QUICHost{URL: "quic://127.0.0.1:4433"}
	m, err := netplay.Connect[World, Buttons](netplay.Config{Players: 2, QUIC: h}, simulate)
	require.NoError(t, err)
	require.NoError(t, m.Close())
	_, err = netplay.Connect[World, Buttons](netplay.Config{Players: 2, Signal: "ws://127.0.0.1:1", QUIC: h}, simulate)
	require.ErrorIs(t, err, rollnet.ErrConfig)
	_, err = netplay.Connect[World, Buttons](netplay.Config{Players: 2, QUIC: h}, nil)
	require.ErrorIs(t, err, rollnet.ErrConfig, "nil simulate")
	_, err = netplay.Connect[World, Buttons](netplay.Config{QUIC: h}, simulate)
	require.ErrorIs(t, err, rollnet.ErrConfig, "no players")
	_, err = netplay.Join[World, Buttons](netplay.Config{Players: 2, Signal: "ws://127.0.0.1:1", QUIC: h}, simulate)
	require.ErrorIs(t, err, rollnet.ErrConfig, "QUIC is Connect's")
	_, err = netplay.Host[World, Buttons](netplay.Config{Players: 2, Signal: "ws://127.0.0.1:1", Fleet: &fleet.Request{Game: "court", Room: "r", Version: "1"}}, simulate)
	require.ErrorIs(t, err, rollnet.ErrConfig, "Fleet is Connect's")
}

// A client dials a dedicated host directly over QUIC, without a signaling
// server, pinning the certificate whose hash the host logs.
func ExampleConnect_quic() {
	qt, err := quic.Listen("127.0.0.1:0", quic.Config{}) // the host's process
	if err != nil {
		fmt.Println(err)
		return
	}
	h, _ := netplay.Host[World, Buttons](netplay.Config{Transport: qt, Players: 2, LocalPlayers: 1, Name: "court"}, simulate)
	defer h.Close()

	c, err := netplay.Connect[World, Buttons](netplay.Config{Players: 2, Name: "alice",
		QUIC: netplay.QUICHost{URL: "quic://" + qt.Addr().String(), PinSHA256: qt.CertHash()}}, simulate)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	for st := (netplay.Status{}); st.Phase != netplay.Running; <-tick.C {
		_, _ = h.AdvanceFrame(0)
		if st, err = c.AdvanceFrame(0); err != nil { // a timeout after Config.Timeout
			fmt.Println(err)
			return
		}
	}
	fmt.Println("alice plays against", c.Name(0))
	// Output: alice plays against court
}
