//go:build !js

// Package browsertest starts headless Chromium for the real-browser tests
// (driven with chromedp), and runs a package's Go tests compiled for
// GOOS=js GOARCH=wasm inside a page of it.
//
// The browser is Debian's chromium (or $ROLLNET_CHROMIUM). Without one a
// test skips and says how to install it, except under CI=true, where it
// fails: CI installs chromium. Chromium is started headless with a fresh
// profile, without the sandbox (it runs as root here), and without the
// background networking a closed network refuses, and with no throttling of
// hidden tabs, since tabs play each other.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Path returns the chromium to drive, or skips t (fails it under CI=true).
func Path(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("ROLLNET_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI=true and no chromium on PATH: CI must install it (apt-get install -y chromium)")
	}
	t.Skip("no chromium on PATH: apt-get install -y chromium (or set ROLLNET_CHROMIUM) to run the browser tests")
	return ""
}

// Start starts a headless Chromium for t, closed at the end of t or after
// limit (less, if the test binary's deadline comes sooner: see Within),
// and returns the context of its first tab; tabs opened with
// chromedp.NewContext from it share the browser. opts come after the
// defaults and override them (chromedp.Flag("disable-quic", false) lets a
// page use QUIC, for WebTransport).
func Start(t testing.TB, limit time.Duration, opts ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	exe := Path(t)
	limit = Within(t, limit)
	browser, stop, err := Launch(exe, t.TempDir(), limit, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return browser
}

// Launch starts the headless Chromium exe with its profile in dir, for at
// most limit, and returns the context of its first tab and the func that
// closes it: for a browser that several tests share (closed by TestMain).
// opts are as Start's.
func Launch(exe, dir string, limit time.Duration, opts ...chromedp.ExecAllocatorOption) (context.Context, func(), error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(dir),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
	}, opts...)...)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	stop := func() { cancelBrowser(); cancelAlloc(); cancel() }
	if err := chromedp.Do(browser, chromedp.Navigate("about:blank")); err != nil {
		stop()
		return nil, nil, fmt.Errorf("starting %s (within %v): %w", exe, limit, err)
	}
	return browser, stop, nil
}

// Within is d, or less when the test binary's deadline (go test
// -timeout, 10 minutes by default) comes sooner: the longest a wait may
// take and still fail with its own message, 20 s before the package's
// timeout would panic with nothing but goroutine stacks.
func Within(t testing.TB, d time.Duration) time.Duration {
	type deadliner interface{ Deadline() (time.Time, bool) }
	if dt, ok := t.(deadliner); ok {
		if dl, ok := dt.Deadline(); ok {
			if left := time.Until(dl) - 20*time.Second; left < d {
				return max(left, time.Second)
			}
		}
	}
	return d
}
