package main

import (
	"bytes"
	"compress/gzip"
	"context"
	_ "embed"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rollnet/rollnet/authority/cmd/hostcmd"
	"github.com/rollnet/rollnet/signaling"
)

// webPage is the page a tab opens: a canvas, the stats, and the wasm pong
// (web_wasm.go) started by the toolchain's wasm_exec.js.
//
//go:embed web.html
var webPage []byte

// webBuild is the pong compiled for the browser.
type webBuild struct {
	wasm     []byte // the module
	gzipped  []byte // the module, gzip-compressed once for transfer
	wasmExec []byte // the toolchain's wasm_exec.js, matching the compiler
	took     time.Duration
}

// buildWeb compiles game.go and web_wasm.go (in the package's directory,
// found with go list from the working directory) for GOOS=js GOARCH=wasm
// with the go command on PATH, and reads that toolchain's wasm_exec.js.
func buildWeb(ctx context.Context) (*webBuild, error) {
	start := time.Now()
	dirOut, err := exec.CommandContext(ctx, "go", "list", "-f", "{{.Dir}}", "github.com/rollnet/rollnet/demo/pong").Output()
	if err != nil {
		return nil, fmt.Errorf("pong: -web builds the browser pong from the module's source: run it inside the rollnet module (go list: %w)", err)
	}
	dir := strings.TrimSpace(string(dirOut))
	tmp, err := os.MkdirTemp("", "rollnet-pong-web-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "pong.wasm")
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", "pongweb", "-trimpath", "-ldflags=-s -w", "-o", out, "game.go", "web_wasm.go")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pong: building the browser pong: %w\n%s", err, msg)
	}
	b := &webBuild{}
	if b.wasm, err = os.ReadFile(out); err != nil {
		return nil, err
	}
	root, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err == nil {
		b.wasmExec, err = os.ReadFile(filepath.Join(strings.TrimSpace(string(root)), "lib", "wasm", "wasm_exec.js"))
	}
	if err != nil {
		return nil, fmt.Errorf("pong: the toolchain's wasm_exec.js: %w", err)
	}
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	_, _ = zw.Write(b.wasm)
	_ = zw.Close()
	b.gzipped = z.Bytes()
	b.took = time.Since(start)
	return b, nil
}

func (b *webBuild) handler(sig http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/room", sig)
	mux.Handle("/room/", sig)
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(webPage)
	})
	mux.HandleFunc("/wasm_exec.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		_, _ = w.Write(b.wasmExec)
	})
	mux.HandleFunc("/pong.wasm", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/wasm")
		w.Header().Set("Cache-Control", "no-store")
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(b.gzipped)
			return
		}
		_, _ = w.Write(b.wasm)
	})
	return mux
}

// startWeb serves the page, the browser pong b and a signaling server on
// addr, one origin: the page's WebSocket goes to the server it came from,
// whose origin check accepts it.
func startWeb(addr string, b *webBuild) (*signalServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("pong: -web: %w", err)
	}
	return serveWeb(ln, b)
}

// serveWeb is startWeb on a listener already open.
func serveWeb(ln net.Listener, b *webBuild) (*signalServer, error) {
	sig, err := signaling.NewServer(signaling.ServerConfig{})
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	hs := hostcmd.ServeSignaling(sig, ln, b.handler(sig))
	return &signalServer{SignalServer: hs, url: hs.URL()}, nil
}

// runWeb is -web ADDR: it serves the browser pong and a signaling server
// until interrupted. It takes the address before the build, so that a busy
// port fails at once, not after it.
func runWeb(ctx context.Context, addr string, stdout, stderr io.Writer) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "pong: -web: %v\n", err)
		return exitFailure
	}
	fmt.Fprintln(stdout, "pong: building the browser pong (GOOS=js GOARCH=wasm)...")
	b, err := buildWeb(ctx)
	if err != nil {
		_ = ln.Close()
		fmt.Fprintln(stderr, err)
		return exitFailure
	}
	s, err := serveWeb(ln, b)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailure
	}
	defer s.close()
	a := strings.TrimPrefix(s.url, "ws://")
	fmt.Fprintf(stdout, "pong: built pong.wasm (%.1f MB, %.1f MB gzipped) in %v\n", float64(len(b.wasm))/1e6, float64(len(b.gzipped))/1e6, b.took.Round(100*time.Millisecond))
	fmt.Fprintf(stdout, "pong: open http://%s/?room=lobby in two tabs to play each other (W/S or the arrow keys),\n", a)
	fmt.Fprintf(stdout, "      or one tab and: go run ./demo/pong -signal ws://%s -room lobby\n", a)
	<-ctx.Done()
	return 0
}
