//go:build !js

package dedicated

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/browsertest"
	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
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
		done <- Run(hostCtx, "rollnet-host", testGames, []string{"-game", "line3", "-room", line3Room, "-stats-every", "0",
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
				agreed, err = playChecked(ctx, tr, host, states, nil)
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
		sc, err := client.Dial(ctx, join, client.Config{})
		if err != nil {
			return nil, "", err
		}
		host := transport.Peer(sc.Peers()[0]) // the host joined first
		c, err := webrtc.New(webrtc.Config{LoopbackOnly: true, Accept: func(p transport.Peer) bool { return p == host }}, sc)
		if err != nil {
			_ = sc.Close()
			return nil, "", err
		}
		if _, err := c.WaitPeers(ctx, 1); err != nil {
			_ = c.Close()
			_ = sc.Close()
			return nil, "", err
		}
		return closers{c, sc}, host, nil
	})
	out, status := browsertest.GoTest(t, browser, "github.com/rollnet/rollnet/authority/dedicated", "^TestBrowserAuthorityClient$", 2*time.Minute,
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

// closers is a WebRTC transport with the signaling client it negotiates
// through.
type closers struct {
	webrtc.Transport
	sc *client.Client
}

func (c closers) Close() error {
	err := c.Transport.Close()
	_ = c.sc.Close()
	return err
}

// startQUICHost runs a QUIC-only host (no signaling server) of line3 with
// extra flags, and returns its address and certificate hash; the host
// stops at the test's end.
func startQUICHost(t *testing.T, ctx context.Context, extra ...string) (addr string, pin [32]byte, logs *syncBuffer) {
	t.Helper()
	hostCtx, stopHost := context.WithCancel(ctx)
	logs = &syncBuffer{}
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(hostCtx, "rollnet-host", testGames, append([]string{"-game", "line3", "-room", line3Room, "-stats-every", "0",
			"-quic", "127.0.0.1:0", "-webrtc=false"}, extra...), logs, func(u string) { ready <- u })
	}()
	t.Cleanup(func() {
		stopHost()
		require.NoError(t, <-done)
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("host ended: %v\n%s", err, logs)
	}
	m := regexp.MustCompile(`msg="quic listening" addr=(\S+) id=\S+ sha256=([0-9a-f]{64})`).FindStringSubmatch(logs.String())
	require.NotNil(t, m, "no quic listening line:\n%s", logs)
	pin, err := quic.ParseHash(m[2])
	require.NoError(t, err)
	return m[1], pin, logs
}

// TestMatchSurvivesMigration: a client that moves to a new UDP socket
// mid-match (a phone changing networks) stays the same client: the host
// never marks it away, no rejoin happens, and every state before and
// after agrees with the host's.
func TestMatchSurvivesMigration(t *testing.T) {
	if testing.Short() {
		t.Skip("real QUIC")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	addr, pin, logs := startQUICHost(t, ctx)
	c, err := quic.Dial(ctx, addr, quic.Config{PinSHA256: pin})
	require.NoError(t, err)
	defer c.Close()
	before := c.LocalAddr().String()
	agreed, err := playChecked(ctx, c, c.Host(), 240, func() error { return c.Migrate(ctx) })
	require.NoError(t, err)
	require.Equal(t, 240, agreed)
	require.NotEqual(t, before, c.LocalAddr().String(), "the client moved to a new socket")
	require.NotContains(t, logs.String(), "client away", "the host lost the client over the move")
	require.NotContains(t, logs.String(), "rejoined")
}

// TestTokenSecretFile: with -token-secret-file only a client holding a
// connect token minted with that secret for the host's address is
// admitted; one without is refused during its handshake.
func TestTokenSecretFile(t *testing.T) {
	if testing.Short() {
		t.Skip("real QUIC")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	secret := []byte("the game backend's secret, 32 B+")
	file := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(file, append(secret, '\n'), 0o600))
	addr, pin, _ := startQUICHost(t, ctx, "-token-secret-file", file, "-quic-address", "game.test:4433")

	_, err := quic.Dial(ctx, addr, quic.Config{PinSHA256: pin})
	require.Error(t, err, "a client without a token")
	g, err := connecttoken.Mint(secret, connecttoken.Claims{Room: line3Room, Client: 77, Expires: time.Now().Add(time.Minute), Address: "game.test:4433"}, nil)
	require.NoError(t, err)
	c, err := quic.Dial(ctx, addr, quic.Config{PinSHA256: pin, Grant: &g})
	require.NoError(t, err)
	defer c.Close()
	require.Equal(t, transport.Peer("client-77"), c.Local())
	agreed, err := playChecked(ctx, c, c.Host(), 30, nil)
	require.NoError(t, err)
	require.Equal(t, 30, agreed)
}
