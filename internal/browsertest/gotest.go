//go:build !js

package browsertest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// testPage runs the test binary test.wasm with the arguments in the
// page's query (one "arg" each), keeps what it prints in window.testOut, and
// its exit status in window.testStatus.
const testPage = `<!doctype html><meta charset="utf-8"><script src="wasm_exec.js"></script><script>
window.testOut = "";
const log = console.log;
console.log = (s) => { window.testOut += s + "\n"; log(s); };
const go = new Go();
go.argv = ["js"].concat(new URLSearchParams(location.search).getAll("arg"));
go.exit = (code) => { window.testStatus = code; };
WebAssembly.instantiateStreaming(fetch("test.wasm"), go.importObject)
  .then((r) => go.run(r.instance))
  .catch((e) => { window.testOut += "browsertest: " + e + "\n"; window.testStatus = -1; });
</script>`

// GoTest compiles the tests of pkg (an import path) for GOOS=js
// GOARCH=wasm, runs those matching run in a page of browser (from Start),
// and returns what they printed and their exit status (-1: the page
// failed to start them). It fails t, saying which, if compiling them and
// running them do not end within limit (less, if the test binary's
// deadline comes sooner: see Within). args go to the test binary after
// its -test flags (flags the tests define, such as the address of a
// server the calling test started).
func GoTest(t testing.TB, browser context.Context, pkg, run string, limit time.Duration, args ...string) (string, int) {
	t.Helper()
	limit = Within(t, limit)
	began := time.Now()
	build, stopBuild := context.WithTimeout(context.Background(), limit)
	defer stopBuild()
	dir := t.TempDir()
	bin := filepath.Join(dir, "test.wasm")
	cmd := exec.CommandContext(build, "go", "test", "-c", "-o", bin, pkg)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		if build.Err() != nil {
			t.Fatalf("waited %v for go test -c %s for js/wasm: killed\n%s", limit, pkg, out)
		}
		t.Fatalf("go test -c %s for js/wasm: %v\n%s", pkg, err, out)
	}
	compiled := time.Since(began)
	limit -= compiled
	root, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	wasmExec := filepath.Join(strings.TrimSpace(string(root)), "lib", "wasm", "wasm_exec.js")
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, testPage) })
	mux.HandleFunc("/wasm_exec.js", func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, wasmExec) })
	mux.HandleFunc("/test.wasm", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/wasm")
		http.ServeFile(w, r, bin)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	tab, cancel := chromedp.NewContext(browser)
	defer cancel()
	url := fmt.Sprintf("http://%s/?arg=-test.v&arg=-test.count=1&arg=-test.run=%s", ln.Addr(), run)
	for _, a := range args {
		url += "&arg=" + neturl.QueryEscape(a)
	}
	// The first action on tab makes the tab: without a bound of its own,
	// which would close the tab with it (the browser's bound holds).
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	ctx, stop := context.WithTimeout(tab, limit)
	defer stop()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("opening the test page (after %v compiling): %v", compiled.Round(time.Second), err)
	}
	type result struct {
		Out    string `json:"out"`
		Status *int   `json:"status"`
	}
	for {
		r, err := chromedp.Run(ctx, chromedp.Evaluate[result](`({out: window.testOut, status: window.testStatus})`))
		if err != nil {
			t.Fatalf("waited %v (after %v compiling) for the tests of %s in the page to end: %v\n%s",
				limit.Round(time.Second), compiled.Round(time.Second), pkg, err, r.Out)
		}
		if r.Status != nil {
			return r.Out, *r.Status
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}
