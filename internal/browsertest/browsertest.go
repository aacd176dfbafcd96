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

// Start starts a headless Chromium for t, closed at the end of t, within
// at most limit, and returns the context of its first tab; tabs opened
// with chromedp.NewContext from it share the browser. opts come after the
// defaults and override them (chromedp.Flag("disable-quic", false) lets a
// page use QUIC, for WebTransport).
func Start(t testing.TB, limit time.Duration, opts ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	exe := Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	t.Cleanup(cancel)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(t.TempDir()),
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
	t.Cleanup(cancelAlloc)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(cancelBrowser)
	if err := chromedp.Do(browser, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	return browser
}
