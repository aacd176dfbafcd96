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

	"github.com/rollnet/rollnet/internal/localsignal"
	"github.com/rollnet/rollnet/signaling"
)

// webPage is the page: a canvas, the stats, and the wasm pong.
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

// buildWeb compiles game.go and web_wasm.go for js/wasm with the go
// command on PATH, and reads that toolchain's wasm_exec.js.
func buildWeb(ctx context.Context) (*webBuild, error) {
	start := time.Now()
	list, err := exec.CommandContext(ctx, "go", "list", "-f", `{{.Dir}}{{"\n"}}{{context.GOROOT}}`, "github.com/rollnet/rollnet/demo/pong").Output()
	if err != nil {
		return nil, fmt.Errorf("pong: -web builds the browser pong from the module's source: run it inside the rollnet module (go list: %w)", err)
	}
	dir, goroot, _ := strings.Cut(strings.TrimSpace(string(list)), "\n")
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
	if b.wasmExec, err = os.ReadFile(filepath.Join(goroot, "lib", "wasm", "wasm_exec.js")); err != nil {
		return nil, fmt.Errorf("pong: the toolchain's wasm_exec.js: %w", err)
	}
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	_, _ = zw.Write(b.wasm)
	_ = zw.Close()
	b.gzipped, b.took = z.Bytes(), time.Since(start)
	return b, nil
}

// serveWeb serves the page, b and a signaling server on ln: one origin,
// which the server's origin check accepts.
func serveWeb(ln net.Listener, b *webBuild) (*localsignal.Server, error) {
	sig, err := signaling.NewServer(signaling.ServerConfig{})
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/room", sig)
	mux.Handle("/room/", sig)
	for path, f := range map[string]struct {
		typ        string
		body, gzip []byte
	}{"/{$}": {"text/html; charset=utf-8", webPage, nil}, "/wasm_exec.js": {"text/javascript", b.wasmExec, nil}, "/pong.wasm": {"application/wasm", b.wasm, b.gzipped}} {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", f.typ)
			w.Header().Set("Cache-Control", "no-store")
			if f.gzip != nil && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				w.Header().Set("Content-Encoding", "gzip")
				_, _ = w.Write(f.gzip)
				return
			}
			_, _ = w.Write(f.body)
		})
	}
	return localsignal.Serve(sig, ln, mux), nil
}

// runWeb is -web ADDR, until interrupted; a busy port fails before the
// build.
func runWeb(ctx context.Context, addr string, stdout, stderr io.Writer) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "pong: -web: %v\n", err)
		return exitFailure
	}
	fmt.Fprintln(stdout, "pong: building the browser pong (GOOS=js GOARCH=wasm)...")
	b, err := buildWeb(ctx)
	if err == nil {
		var s *localsignal.Server
		if s, err = serveWeb(ln, b); err == nil {
			defer s.Close()
			a := strings.TrimPrefix(s.URL(), "ws://")
			fmt.Fprintf(stdout, "pong: built pong.wasm (%.1f MB, %.1f MB gzipped) in %v\n", float64(len(b.wasm))/1e6, float64(len(b.gzipped))/1e6, b.took.Round(100*time.Millisecond))
			fmt.Fprintf(stdout, "pong: open http://%s/?room=lobby in two tabs to play each other (W/S or the arrow keys),\n", a)
			fmt.Fprintf(stdout, "      or one tab and: go run ./demo/pong -signal ws://%s -room lobby\n", a)
			<-ctx.Done()
			return exitOK
		}
	}
	_ = ln.Close()
	fmt.Fprintln(stderr, err)
	return exitFailure
}
