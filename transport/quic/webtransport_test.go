//go:build !js

package quic

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	quicgo "github.com/quic-go/quic-go"
	"github.com/quic-go/webtransport-go"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/browsertest"
	"github.com/rollnet/rollnet/internal/tokenverify"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// echo sends every datagram h receives back to its sender until ctx ends.
func echo(ctx context.Context, h *qtransport) {
	buf := make([]byte, transport.MaxDatagram)
	for ctx.Err() == nil {
		n, from, err := h.Receive(buf)
		if errors.Is(err, transport.ErrNoPacket) {
			time.Sleep(time.Millisecond)
			continue
		}
		if err != nil {
			return
		}
		_ = h.Send(from, buf[:n])
	}
}

// A tab of headless Chromium reaches a Go host over WebTransport with
// nothing else running: no signaling server, the self-signed certificate
// accepted by its hash, a connect token in the URL and its key in the
// hello; datagrams of every size cross both ways (TestWebTransportClient,
// built for js/wasm, is the page's side).
func TestWebTransportInBrowser(t *testing.T) {
	browser := browsertest.Start(t, 3*time.Minute, chromedp.Flag("disable-quic", false))
	h, v := tokenWebTransportHost(t)
	g, err := connecttoken.Mint(tokenSecret, connecttoken.Claims{Room: "r", Client: 9, Expires: time.Now().Add(time.Minute), Address: h.cfg.Address}, nil)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); echo(ctx, h) }()
	defer func() { cancel(); <-done }()

	url := "https://" + h.Addr().String() + WebTransportPath
	out, status := browsertest.GoTest(t, browser, "github.com/rollnet/rollnet/transport/quic", "^TestWebTransportClient$", 2*time.Minute,
		"-wt.url="+url, "-wt.hash="+FormatHash(h.CertHash()), "-wt.grant="+g.String())
	t.Log(out)
	require.Zero(t, status, "the page's tests failed")
	require.Contains(t, out, "--- PASS: TestWebTransportClient")
	require.Equal(t, uint64(1), v.Stats().Redeemed)
}

// tokenWebTransportHost starts a host that serves WebTransport too and
// admits only connect tokens minted for its socket's address, as the page
// dials it.
func tokenWebTransportHost(t *testing.T) (*qtransport, *tokenverify.Verifier) {
	t.Helper()
	udp, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	require.NoError(t, err)
	v, err := tokenverify.NewVerifier(tokenSecret, udp.LocalAddr().String(), tokenverify.Config{})
	require.NoError(t, err)
	cfg, err := Config{WebTransport: true, tokens: v}.withDefaults()
	require.NoError(t, err)
	h, err := listenOn(udp, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	return h, v
}

// A WebTransport request with no token, a garbage one or a forged one is
// refused before a session is made, and counted: the Go client of
// webtransport-go plays the browser.
func TestWebTransportTokenRefusals(t *testing.T) {
	h, v := tokenWebTransportHost(t)
	d := &webtransport.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h3"}}, //nolint:gosec // the test host's self-signed certificate
		QUICConfig:      &quicgo.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true},
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	base := "https://" + h.Addr().String() + WebTransportPath
	forged, err := connecttoken.Mint([]byte("not the host's secret, but long"), connecttoken.Claims{Client: 1, Expires: time.Now().Add(time.Minute), Address: h.cfg.Address}, nil)
	require.NoError(t, err)
	for _, tc := range []struct {
		query  string
		status int
	}{
		{"", http.StatusUnauthorized},
		{"?token=!!!", http.StatusUnauthorized},
		{"?token=AAAA", http.StatusForbidden},
		{"?token=" + base64.RawURLEncoding.EncodeToString(forged.Token), http.StatusForbidden},
	} {
		rsp, sess, err := d.Dial(ctx, base+tc.query, nil)
		require.Error(t, err, tc.query)
		require.Nil(t, sess)
		require.NotNil(t, rsp, "%q: no HTTP answer: %v", tc.query, err)
		require.Equal(t, tc.status, rsp.StatusCode, tc.query)
	}
	require.Equal(t, uint64(2), h.Stats().TokensMissing)
	require.Equal(t, uint64(1), v.Stats().Malformed)
	require.Equal(t, uint64(1), v.Stats().Forged)
	require.Empty(t, h.Peers(nil))
}
