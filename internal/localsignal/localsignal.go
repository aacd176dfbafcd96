// Package localsignal serves a signaling server on loopback for the
// repository's commands and demo: the one a dedicated host starts when it
// is given no signaling server, the demo's, and a local fleet's.
package localsignal

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/rollnet/rollnet/signaling"
)

// Server is a signaling server on a random loopback port: the one
// the host starts when -signal is not given (a demo starts its own the
// same way).
type Server struct {
	srv  *signaling.Server
	http *http.Server
	url  string
	done chan struct{}
}

// Start serves a signaling server with cfg on 127.0.0.1, on a
// port of the system's choosing, until Close.
func Start(cfg signaling.ServerConfig) (*Server, error) {
	srv, err := signaling.NewServer(cfg)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = srv.Close()
		return nil, err
	}
	return Serve(srv, ln, srv), nil
}

// Serve serves h on ln until Close, where h hands the signaling
// server's own routes to srv (h is srv itself, or a handler that serves
// pages of its own beside it, as the demo's -web does); Close closes srv.
func Serve(srv *signaling.Server, ln net.Listener, h http.Handler) *Server {
	s := &Server{srv: srv, http: &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second},
		url: "ws://" + ln.Addr().String(), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_ = s.http.Serve(ln)
	}()
	return s
}

// URL is the server's ws://127.0.0.1:PORT.
func (s *Server) URL() string { return s.url }

// Close closes every connection and stops serving.
func (s *Server) Close() {
	_ = s.srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = s.http.Shutdown(ctx)
	<-s.done
}

// IsLoopback reports whether a signaling URL names this machine: ICE is
// then kept to loopback (fast, and no network interfaces needed).
func IsLoopback(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	if p.Hostname() == "localhost" {
		return true
	}
	ip := net.ParseIP(p.Hostname())
	return ip != nil && ip.IsLoopback()
}
