//go:build !js

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	pion "github.com/pion/webrtc/v4"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/browsertest"
	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// The real-browser tests: the browser pong (web_wasm.go, compiled by -web
// as a person runs it) in headless Chromium, driven with chromedp. The tab
// runs the Go session in WebAssembly over transport/webrtc's browser
// build, that is over Chromium's own WebRTC stack (ICE, DTLS, SCTP, the
// negotiated channel), against a native pong process on pion's, or against
// another tab.

// pageResult is window.pong when the tab's match is over.
type pageResult struct {
	Done       bool    `json:"done"`
	Error      string  `json:"error"`
	Status     string  `json:"status"`
	Side       int     `json:"side"`
	Frame      int     `json:"frame"`
	Compared   int     `json:"compared"`
	Agreed     int     `json:"agreed"`
	LoadedMs   float64 `json:"loadedMs"`
	OpenMs     float64 `json:"openMs"`
	RTTMs      float64 `json:"rttMs"`
	RTTTicks   float64 `json:"rttTicks"`
	NetRTTMs   float64 `json:"netRttMs"`
	Rollbacks  int     `json:"rollbacks"`
	Spectators int     `json:"spectators"`
	PeerGone   string  `json:"peerGone"`
}

// browserEnv is the browser pong's -web server and one headless
// Chromium, shared by every browser test of the package (each in rooms of
// its own): one browser compiles the 12 MB pong.wasm once and keeps it in
// its code cache, where a browser per test compiled it again each time
// (on a loaded 2-core machine, a tab then never started its game within 2
// minutes). TestMain closes it.
type browserEnv struct {
	addr    string
	build   *webBuild
	browser context.Context
}

var shared struct {
	once  sync.Once
	env   *browserEnv
	err   error
	close []func()
}

// newBrowserEnv returns the shared browser environment, started by the
// first test that asks, within that test's deadline.
func newBrowserEnv(t *testing.T) *browserEnv {
	t.Helper()
	exe := browsertest.Path(t) // skip before building anything without a browser
	shared.once.Do(func() { shared.env, shared.err = startBrowserEnv(t, exe) })
	require.NoError(t, shared.err)
	b := shared.env.build
	t.Logf("pong.wasm: %d bytes (%.1f MB), %d gzipped, built in %v", len(b.wasm), float64(len(b.wasm))/1e6, len(b.gzipped), b.took.Round(time.Millisecond))
	return shared.env
}

func startBrowserEnv(t *testing.T, exe string) (*browserEnv, error) {
	limit := within(t, 10*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	b, err := buildWeb(ctx)
	if err != nil {
		return nil, fmt.Errorf("building the browser pong (go build for js/wasm), within %v: %w", limit, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv, err := serveWeb(ln, b)
	if err != nil {
		return nil, err
	}
	shared.close = append(shared.close, srv.Close)
	dir, err := os.MkdirTemp("", "rollnet-pong-chromium-")
	if err != nil {
		return nil, err
	}
	shared.close = append(shared.close, func() { _ = os.RemoveAll(dir) })
	// The browser lives until the package's tests end: the test binary's
	// deadline bounds it.
	browser, stop, err := browsertest.Launch(exe, dir, within(t, 10*time.Minute))
	if err != nil {
		return nil, err
	}
	shared.close = append(shared.close, stop)
	return &browserEnv{addr: strings.TrimPrefix(srv.URL(), "ws://"), build: b, browser: browser}, nil
}

// closeBrowserEnv closes the shared browser and server, if a test started
// them (TestMain, after the tests).
func closeBrowserEnv() {
	for _, c := range slices.Backward(shared.close) {
		c()
	}
}

// tab opens a new tab on the page for room, with a bot playing and query
// added to the page's URL, and returns its context.
func (e *browserEnv) tab(t *testing.T, room string, frames int, query ...string) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(e.browser)
	t.Cleanup(cancel)
	url := fmt.Sprintf("http://%s/?room=%s&bot=1&frames=%d", e.addr, room, frames)
	for _, q := range query {
		url += "&" + q
	}
	// The first action on a tab's context makes the tab, and a bound on
	// that call's context would close the tab with it: make it unbounded
	// (the browser's own bound holds), then navigate within a bound.
	require.NoError(t, chromedp.Do(ctx), "opening a tab")
	limit := within(t, 2*time.Minute)
	nav, stop := context.WithTimeout(ctx, limit)
	defer stop()
	require.NoError(t, chromedp.Do(nav, chromedp.Navigate(url)), "waited %v for the tab to load %s", limit, url)
	return ctx
}

// wait polls the tab's window.pong until its match is over, for at most
// limit (less near the test binary's deadline).
func wait(t *testing.T, ctx context.Context, limit time.Duration) pageResult {
	t.Helper()
	return waitUntil(t, ctx, limit, "the tab's match to end", func(r pageResult) bool { return r.Done })
}

// waitUntil polls the tab's window.pong until cond holds, for at most
// limit (less near the test binary's deadline); what says what cond is.
func waitUntil(t *testing.T, ctx context.Context, limit time.Duration, what string, cond func(pageResult) bool) pageResult {
	t.Helper()
	limit = within(t, limit)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var r pageResult
	for {
		var err error
		r, err = chromedp.Run(ctx, chromedp.Evaluate[pageResult](`window.pong || {}`))
		require.NoError(t, err, "waited %v for %s (last: %+v)", limit, what, r)
		if cond(r) {
			return r
		}
		select {
		case <-ctx.Done():
			require.FailNow(t, "timeout", "waited %v for %s (last: %+v)", limit, what, r)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// checkPlayed asserts a tab played frames frames and agreed with its
// opponent on every compared checksum, and logs its measurements.
func checkPlayed(t *testing.T, name string, r pageResult, frames int) {
	t.Helper()
	require.Empty(t, r.Error, "%s: %+v", name, r)
	require.GreaterOrEqual(t, r.Frame, frames, "%s: %+v", name, r)
	require.Positive(t, r.Compared, "%s compared no checksum: %+v", name, r)
	require.Equal(t, r.Compared, r.Agreed, "%s: checksums disagree: %+v", name, r)
	t.Logf("%s (side %d): page load to channel open %.0f ms (wasm started at %.0f ms), input round trip %.1f ticks (%.1f ms; network %.2f ms), %d checksums compared, all agree, %d rollbacks",
		name, r.Side, r.OpenMs, r.LoadedMs, r.RTTTicks, r.RTTMs, r.NetRTTMs, r.Compared, r.Rollbacks)
}

// screenshot saves the tab's canvas under the test's artifact directory
// and checks it is not blank: the paddles and the score are drawn in
// several colours brighter than the court's border and net (checked to
// fail with the tab drawing nothing: 2 colours).
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	limit := within(t, time.Minute)
	shot, stop := context.WithTimeout(ctx, limit)
	defer stop()
	buf, err := chromedp.Run(shot, chromedp.Screenshot("#court"))
	require.NoError(t, err, "waited %v for a screenshot of the tab's canvas", limit)
	path := filepath.Join(t.ArtifactDir(), name+".png")
	require.NoError(t, os.WriteFile(path, buf, 0o644))
	img, err := png.Decode(bytes.NewReader(buf))
	require.NoError(t, err)
	colours := map[[3]uint32]int{}
	lit := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}]++
			if r+g+bl > 3*0x8000 { // brighter than the border and the net
				lit++
			}
		}
	}
	t.Logf("canvas screenshot %s: %dx%d, %d colours, %d lit pixels", path, b.Dx(), b.Dy(), len(colours), lit)
	require.GreaterOrEqual(t, len(colours), 3, "the canvas is blank")
	require.Greater(t, lit, b.Dx()*b.Dy()/400, "nothing bright on the canvas: no paddles, no score")
}

// native starts the native pong (this test binary as the demo, or the
// binary $ROLLNET_PONG_NATIVE names) with a bot in room on e's server, and returns a func that waits for it to exit and
// returns its output and exit status.
func (e *browserEnv) native(t *testing.T, room string, frames int, extra ...string) func() (string, int) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	if p := os.Getenv("ROLLNET_PONG_NATIVE"); p != "" {
		exe = p // another build of the native pong (another release, say)
	}
	limit := within(t, 5*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	args := append([]string{"-signal", "ws://" + e.addr, "-room", room, "-bot", "-frames", fmt.Sprint(frames), "-headless", "-timeout", "3m"}, extra...)
	cmd := demoCommand(ctx, exe, args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	return func() (string, int) {
		err := cmd.Wait()
		t.Logf("native pong:\n%s", out.String())
		require.NoError(t, ctx.Err(), "waited %v for the native pong to exit: killed", limit)
		if err != nil {
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "the native pong did not run")
		}
		return out.String(), cmd.ProcessState.ExitCode()
	}
}

// TestBrowserTabPlaysNativeProcess: a tab plays a native pong process (the
// real demo, -signal -room -bot) for 600 frames through the signaling
// server the page came from, on loopback; both sides' sessions compare
// checksums of confirmed frames and agree on every one (the native
// process exits 1 on a desync). A second tab watches: the native host
// adds it as a spectator.
func TestBrowserTabPlaysNativeProcess(t *testing.T) {
	t.Parallel() // mostly waiting on real-time frames
	e := newBrowserEnv(t)
	const frames = 600
	done := e.native(t, "tab-vs-native", frames)
	ctx := e.tab(t, "tab-vs-native", frames)
	waitUntil(t, ctx, 2*time.Minute, "the tab's channel to the native pong to open", func(r pageResult) bool { return r.OpenMs > 0 || r.Done })
	w := e.tab(t, "tab-vs-native", frames) // watches the native host
	r := wait(t, ctx, 4*time.Minute)
	rw := wait(t, w, 2*time.Minute)
	screenshot(t, ctx, "tab-vs-native")
	out, status := done()
	require.Equal(t, exitOK, status, "the native pong failed or saw a desync")
	checkPlayed(t, "tab", r, frames)
	require.Positive(t, r.NetRTTMs, "the browser's ICE round trip (PeerInfo from getStats)")
	require.Equal(t, -1, rw.Side)
	checkPlayed(t, "spectator tab", rw, frames)
	if strings.Contains(out, "pong report (left)") { // seat 0 feeds the spectators
		require.Contains(t, out, "(replays from frame 0)", "the native host added the tab as a spectator")
	}
	require.Contains(t, out, "(checksums agree)")
	require.Contains(t, out, fmt.Sprintf("frames played       %d", frames))
}

// TestBrowserDesyncCaught: the same match with the tab's state corrupted
// from frame 200 on (inject=200 in the page's URL): the tab's session
// detects the desync from the checksums, and so does the native one (exit
// status 1). The agreement the other tests see is a comparison that can
// fail. (The native -inject-desync corrupts one frame, which a rollback
// past it undoes: against a browser's timing it went unseen.)
func TestBrowserDesyncCaught(t *testing.T) {
	t.Parallel() // mostly waiting on real-time frames
	e := newBrowserEnv(t)
	const frames = 600
	done := e.native(t, "desync", frames)
	ctx := e.tab(t, "desync", frames, "inject=200")
	r := wait(t, ctx, 4*time.Minute)
	t.Logf("tab: %+v", r)
	require.Contains(t, r.Error, "desync at frame")
	require.Less(t, r.Frame, frames, "the tab stops at the desync")
	_, status := done()
	require.Equal(t, exitDesync, status)
}

// TestBrowserTwoTabs: two tabs of one Chromium play each other, browser
// to browser, through the same server, and a third tab, opened once the
// match is on, watches it: the left tab (the host) adds it as a spectator,
// and it replays the match from frame 0, agreeing with the host's
// checksums.
func TestBrowserTwoTabs(t *testing.T) {
	t.Parallel() // mostly waiting on real-time frames
	e := newBrowserEnv(t)
	const frames = 600
	a := e.tab(t, "tab-vs-tab", frames)
	b := e.tab(t, "tab-vs-tab", frames)
	open := func(r pageResult) bool { return r.OpenMs > 0 || r.Done }
	waitUntil(t, a, 2*time.Minute, "tab A's channel to open", open)
	waitUntil(t, b, time.Minute, "tab B's channel to open", open)
	w := e.tab(t, "tab-vs-tab", frames)
	ra := wait(t, a, 4*time.Minute)
	rb := wait(t, b, time.Minute)
	rw := wait(t, w, 2*time.Minute)
	screenshot(t, a, "tab-a")
	checkPlayed(t, "tab A", ra, frames)
	checkPlayed(t, "tab B", rb, frames)
	require.NotEqual(t, ra.Side, rb.Side)
	require.Equal(t, 1, ra.Spectators+rb.Spectators, "the host added the spectator")
	require.Equal(t, -1, rw.Side)
	checkPlayed(t, "spectator tab", rw, frames)
}

// TestBrowserTabDropsHostilePeer: a raw pion peer (not a Transport) joins a
// tab's room, answers its offer on the game channel's settings, and sends
// what no Transport sends: a message over MaxMessageSize (the browser
// accepts up to its own advertised size, 256 KiB) or a text message. The
// tab's transport disconnects it with the reason (read from the page's
// PeerGone event), never queueing the message.
func TestBrowserTabDropsHostilePeer(t *testing.T) {
	t.Parallel() // mostly waiting on real-time frames
	e := newBrowserEnv(t)
	for _, c := range []struct {
		name string
		send func(*pion.DataChannel) error
		want string
	}{
		{"oversize", func(dc *pion.DataChannel) error { return dc.Send(make([]byte, 2000)) }, webrtc.ErrOversizeMessage.Error()},
		{"text", func(dc *pion.DataChannel) error { return dc.SendText("hello") }, webrtc.ErrTextMessage.Error()},
	} {
		t.Run(c.name, func(t *testing.T) {
			tab := e.tab(t, "hostile-"+c.name, 600)
			waitUntil(t, tab, 2*time.Minute, "the tab to wait for an opponent", func(r pageResult) bool { return strings.Contains(r.Status, "waiting for an opponent") })
			ctx, cancel := context.WithTimeout(context.Background(), within(t, time.Minute))
			defer cancel()
			dc := hostilePeer(t, ctx, "ws://"+e.addr+"/room/hostile-"+c.name)
			require.NoError(t, c.send(dc))
			r := waitUntil(t, tab, time.Minute, "the tab to drop the hostile peer", func(r pageResult) bool { return r.PeerGone != "" || r.Done })
			require.Equal(t, c.want, r.PeerGone, "%+v", r)
		})
	}
}

// hostilePeer joins url as a raw pion peer, answers the offer of the peer
// already there on a negotiated channel 0, and returns the channel once
// open.
func hostilePeer(t *testing.T, ctx context.Context, url string) *pion.DataChannel {
	t.Helper()
	sc, err := client.Dial(ctx, url, client.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sc.Close() })
	require.Len(t, sc.Peers(), 1)
	tab := sc.Peers()[0]
	pc, err := pion.NewPeerConnection(pion.Configuration{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = pc.GracefulClose() })
	ordered, zero, negotiated, id := false, uint16(0), true, uint16(0)
	dc, err := pc.CreateDataChannel("hostile", &pion.DataChannelInit{Ordered: &ordered, MaxRetransmits: &zero, Negotiated: &negotiated, ID: &id})
	require.NoError(t, err)
	open := make(chan struct{})
	dc.OnOpen(func() { close(open) })
	pc.OnICECandidate(func(c *pion.ICECandidate) {
		if c != nil {
			payload, _ := json.Marshal(c.ToJSON())
			_ = sc.Send(ctx, tab, client.Signal{Kind: client.SignalCandidate, Payload: payload})
		}
	})
	var early []pion.ICECandidateInit
	for remoteSet := false; ; {
		var ev client.Event
		select {
		case ev = <-sc.Events():
		case <-open:
			return dc
		case <-ctx.Done():
			require.FailNow(t, "timeout", "waited for the tab's channel to the hostile peer to open: %v", ctx.Err())
		}
		if ev.Kind != client.SignalReceived {
			continue
		}
		switch ev.Signal.Kind {
		case client.SignalOffer:
			var offer pion.SessionDescription
			require.NoError(t, json.Unmarshal(ev.Signal.Payload, &offer))
			require.NoError(t, pc.SetRemoteDescription(offer))
			remoteSet = true
			for _, c := range early {
				require.NoError(t, pc.AddICECandidate(c))
			}
			answer, err := pc.CreateAnswer(nil)
			require.NoError(t, err)
			require.NoError(t, pc.SetLocalDescription(answer))
			payload, err := json.Marshal(answer)
			require.NoError(t, err)
			require.NoError(t, sc.Send(ctx, tab, client.Signal{Kind: client.SignalAnswer, Payload: payload}))
		case client.SignalCandidate:
			var cs []pion.ICECandidateInit // the tab bundles its candidates
			require.NoError(t, json.Unmarshal(ev.Signal.Payload, &cs))
			if !remoteSet {
				early = append(early, cs...)
				continue
			}
			for _, c := range cs {
				require.NoError(t, pc.AddICECandidate(c))
			}
		}
	}
}
