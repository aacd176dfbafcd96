//go:build !js

package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/browsertest"
)

// serveWeb builds the game for the browser and serves it on 127.0.0.1.
func serveWeb(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "tanks.wasm"), ".")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "the wasm build: %s", out)
	js, err := os.ReadFile(filepath.Join(goroot(t), "lib", "wasm", "wasm_exec.js"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wasm_exec.js"), js, 0o644))
	page, err := os.ReadFile(filepath.Join("web", "index.html")) // the README's page
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.html"), page, 0o644))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: http.FileServer(http.Dir(dir)), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

func goroot(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

// TestBrowserPlaysNative plays the browser build in headless Chromium
// against a native process in an Xvfb window, 600 frames over WebRTC on
// loopback: they agree on every checksum both confirmed.
func TestBrowserPlaysNative(t *testing.T) {
	web := serveWeb(t)
	webURL, err := url.Parse(web)
	require.NoError(t, err)
	signal := startSignal(t, webURL.Host)
	native := play(t, startX(t), "-signal", signal, "-room", "browser", "-name", "native",
		"-bot", "-frames", strconv.Itoa(frames), "-hold", "90s")

	browser := browsertest.Start(t, 120*time.Second)
	reports := make(chan string, 1)
	logs := make(chan string, 256)
	ctx, cancelTab := chromedp.NewContext(browser)
	defer cancelTab()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("about:blank")))
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		if ev, ok := ev.(*runtime.EventConsoleAPICalled); ok {
			for _, arg := range ev.Args {
				var s string
				if json.Unmarshal(arg.Value, &s) != nil {
					continue
				}
				if rest, ok := strings.CutPrefix(s, "report "); ok {
					select {
					case reports <- rest:
					default:
					}
				}
				select {
				case logs <- s:
				default:
				}
			}
		}
	}))
	q := url.Values{"signal": {signal}, "room": {"browser"}, "name": {"tab"}, "bot": {"true"},
		"frames": {strconv.Itoa(frames)}, "report": {"-"}}
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(web+"/?"+q.Encode())))
	var tab Report
	select {
	case s := <-reports:
		require.NoError(t, json.Unmarshal([]byte(s), &tab))
	case <-time.After(90 * time.Second):
		close(logs)
		var seen []string
		for s := range logs {
			seen = append(seen, s)
		}
		t.Fatalf("no report from the tab within 90 s; its console:\n%s", strings.Join(seen, "\n"))
	}
	n := native.wait(t, 30*time.Second)
	require.EqualValues(t, frames, tab.Frame)
	common := agree(t, tab, n, frames/2)
	t.Logf("%d frames compared; first shared frame %.0f ms after launch (tab), %.0f ms (native)", common, tab.FirstShared, n.FirstShared)
}
