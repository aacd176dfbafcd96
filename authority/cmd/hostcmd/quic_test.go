//go:build !js

package hostcmd

import (
	"context"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/browsertest"
	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic"
	"github.com/rollnet/rollnet/transport/webrtc"
)

var quicLog = regexp.MustCompile(`msg="quic listening" addr=(\S+) id=\S+ sha256=([0-9a-f]{64}) webtransport=(\S+)`)

// TestMatchOverQUICWebTransportAndWebRTC: one dedicated host (-quic
// -webtransport, and WebRTC through the signaling server it starts)
// serves three clients in one match: a native client over QUIC, a tab of
// headless Chromium over WebTransport (its Go wasm build,
// TestBrowserAuthorityClient), and a native client over WebRTC. Each
// compares every state it applies with the host's checksum of that frame:
// all must agree.
func TestMatchOverQUICWebTransportAndWebRTC(t *testing.T) {
	if testing.Short() {
		t.Skip("real QUIC, WebRTC and Chromium")
	}
	browser := browsertest.Start(t, 4*time.Minute, chromedp.Flag("disable-quic", false))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	hostCtx, stopHost := context.WithCancel(ctx)
	logs := &syncBuffer{}
	joinURL := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(hostCtx, "rollnet-host", []string{"-game", "line3", "-room", line3Room, "-stats-every", "0",
			"-quic", "127.0.0.1:0", "-webtransport"}, logs, func(u string) { joinURL <- u })
	}()
	hostDone := false
	defer func() {
		if !hostDone {
			stopHost()
			<-done
		}
	}()
	var join string
	select {
	case join = <-joinURL:
	case err := <-done:
		t.Fatalf("host ended: %v\n%s", err, logs)
	}
	m := quicLog.FindStringSubmatch(logs.String())
	require.NotNil(t, m, "no quic listening line in the host's log:\n%s", logs)
	addr, hash, wtURL := m[1], m[2], m[3]
	pin, err := quic.ParseHash(hash)
	require.NoError(t, err)

	const states = 120
	var wg sync.WaitGroup
	results := make(map[string]error)
	var mu sync.Mutex
	play := func(name string, dial func() (transport.Transport, transport.Peer, error)) {
		wg.Go(func() {
			tr, host, err := dial()
			if err == nil {
				defer tr.Close()
				var agreed int
				agreed, err = playChecked(ctx, tr, host, states)
				t.Logf("%s: %d states agreed with the host's", name, agreed)
			}
			mu.Lock()
			results[name] = err
			mu.Unlock()
		})
	}
	play("native over QUIC", func() (transport.Transport, transport.Peer, error) {
		c, err := quic.Dial(ctx, addr, quic.Config{PinSHA256: pin})
		if err != nil {
			return nil, "", err
		}
		return c, c.Host(), nil
	})
	play("native over WebRTC", func() (transport.Transport, transport.Peer, error) {
		sc, err := signaling.Dial(ctx, join, signaling.ClientConfig{})
		if err != nil {
			return nil, "", err
		}
		sig := webrtc.NewSignalingAdapter(sc)
		host := transport.Peer(sc.Peers()[0]) // the host joined first
		c, err := webrtc.New(webrtc.Config{LoopbackOnly: true, Accept: func(p transport.Peer) bool { return p == host }}, sig)
		if err != nil {
			_ = sig.Close()
			return nil, "", err
		}
		if _, err := c.WaitPeers(ctx, 1); err != nil {
			_ = c.Close()
			_ = sig.Close()
			return nil, "", err
		}
		return closers{c, sig}, host, nil
	})
	out, status := browsertest.GoTest(t, browser, "github.com/rollnet/rollnet/authority/cmd/hostcmd", "^TestBrowserAuthorityClient$", 2*time.Minute,
		"-wt.url="+wtURL, "-wt.hash="+hash, "-wt.states=120")
	wg.Wait()
	t.Log(out)
	require.Zero(t, status, "the browser tab's client failed:\n%s", out)
	require.Contains(t, out, "--- PASS: TestBrowserAuthorityClient")
	require.Contains(t, out, "states agreed with the host's")
	for name, err := range results {
		require.NoError(t, err, name)
	}
	require.Len(t, results, 2)
	stopHost()
	hostDone = true
	require.NoError(t, <-done)
	require.Contains(t, logs.String(), "joined=3", "the host's log:\n%s", logs)
}

// closers is a WebRTC transport with the signaling adapter it owns.
type closers struct {
	*webrtc.Transport
	sig *webrtc.SignalingAdapter
}

func (c closers) Close() error {
	err := c.Transport.Close()
	_ = c.sig.Close()
	return err
}
