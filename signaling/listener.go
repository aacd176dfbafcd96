package signaling

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"

	"github.com/rollnet/rollnet/internal/forwarded"
)

// Serve accepts connections on ln and serves them with an http.Server that
// the ServerConfig bounds: at most MaxConnsPerAddr+8 TCP connections from
// one address (TrustedProxies exempt) and MaxConns in total, counted at accept
// (the ones over are answered HTTP 429 and closed before anything is
// read), headers of at most MaxHeaderBytes within HeaderTimeout, and
// keep-alive connections closed after IdleTimeout. It returns
// http.ErrServerClosed after Close or Shutdown, and closes ln.
func (s *Server) Serve(ln net.Listener) error { return s.serve(ln, "", "") }

// ServeTLS is Serve over TLS with the certificate and key in the named PEM
// files (as http.Server.ServeTLS).
func (s *Server) ServeTLS(ln net.Listener, certFile, keyFile string) error {
	return s.serve(ln, certFile, keyFile)
}

func (s *Server) serve(ln net.Listener, certFile, keyFile string) error {
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.cfg.Tuning.HeaderTimeout,
		IdleTimeout:       s.cfg.Tuning.IdleTimeout,
		MaxHeaderBytes:    s.cfg.Tuning.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		_ = ln.Close()
		return http.ErrServerClosed
	}
	s.https = append(s.https, hs)
	s.mu.Unlock()
	cl := &capListener{Listener: ln, srv: s}
	if certFile != "" || keyFile != "" {
		return hs.ServeTLS(cl, certFile, keyFile)
	}
	return hs.Serve(cl)
}

// Shutdown stops accepting, lets HTTP requests in progress finish until
// ctx ends, then closes every WebSocket as Close does.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	https := append([]*http.Server(nil), s.https...)
	s.mu.Unlock()
	var err error
	for _, hs := range https {
		err = errors.Join(err, hs.Shutdown(ctx))
	}
	return errors.Join(err, s.Close())
}

// acceptSlack is how many TCP connections one address may hold at accept
// beyond MaxConnsPerAddr WebSockets (health checks, a page load, a request
// being upgraded), so that a client over its WebSocket cap is normally
// refused at the upgrade, where the server has read its request and the
// 429 reaches it as an answer. Refused at accept, the 429 is written before
// the request is read, and an HTTP client may report only a dropped
// connection.
const acceptSlack = 8

// tooManyResponse is the whole answer to a connection refused at accept.
const tooManyResponse = "HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\n" +
	"Content-Type: text/plain; charset=utf-8\r\nContent-Length: 34\r\n\r\n" +
	"signaling: too many connections\r\n\r\n"

// capListener counts TCP connections per address at accept.
type capListener struct {
	net.Listener
	srv *Server
}

func (l *capListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := remoteIP(conn.RemoteAddr())
		if l.srv.admitSocket(ip) {
			return &countedConn{Conn: conn, srv: l.srv, ip: ip}, nil
		}
		// A fresh socket's send buffer takes these bytes without blocking.
		_, _ = conn.Write([]byte(tooManyResponse))
		_ = conn.Close()
	}
}

func remoteIP(a net.Addr) netip.Addr {
	if ta, ok := a.(*net.TCPAddr); ok {
		ip, _ := netip.AddrFromSlice(ta.IP)
		return ip.Unmap()
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.Addr{} // not IP: all such connections share one count
	}
	return ap.Addr().Unmap()
}

// admitSocket counts a new TCP connection from ip, or refuses it.
func (s *Server) admitSocket(ip netip.Addr) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing || s.nsockets >= s.cfg.Tuning.MaxConns ||
		!s.trusted(ip) && s.sockets[ip] >= s.cfg.Tuning.MaxConnsPerAddr+acceptSlack {
		s.stats.acceptRefused.Add(1)
		return false
	}
	s.nsockets++
	s.sockets[ip]++
	return true
}

func (s *Server) releaseSocket(ip netip.Addr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nsockets--
	if s.sockets[ip]--; s.sockets[ip] <= 0 {
		delete(s.sockets, ip)
	}
}

// countedConn gives its slot back when closed, by the http.Server or, once
// hijacked, by the WebSocket.
type countedConn struct {
	net.Conn
	srv  *Server
	ip   netip.Addr
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.srv.releaseSocket(c.ip) })
	return c.Conn.Close()
}

func (s *Server) trusted(ip netip.Addr) bool {
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// clientAddr is the address a request counts against: ClientAddr's answer
// when set; else, from a trusted proxy, the address the proxies vouch for
// (internal/forwarded: right to left past trusted hops, Forwarded before
// X-Forwarded-For); else the TCP peer's.
func (s *Server) clientAddr(r *http.Request) string {
	if s.cfg.ClientAddr != nil {
		return s.cfg.ClientAddr(r)
	}
	if r.Header.Get("Forwarded") != "" || r.Header.Get("X-Forwarded-For") != "" {
		if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil && !s.trusted(ap.Addr().Unmap()) {
			s.forwardedIgnored(r, ap.Addr().Unmap())
		}
	}
	return forwarded.Client(r, s.cfg.TrustedProxies)
}

// forwardedIgnored counts a request whose proxy headers were ignored (its
// TCP peer is not in TrustedProxies), and says so in the log: at Warn the
// first time and every 1024th, since it most likely means a reverse proxy
// that was not named, so that every client counts as the proxy's address
// (as loopback's, exempt from the per-address caps, when the proxy runs on
// this machine).
func (s *Server) forwardedIgnored(r *http.Request, peer netip.Addr) {
	n := s.stats.forwardedIgnored.Add(1)
	lvl := slog.LevelDebug
	if n == 1 || n%1024 == 0 {
		lvl = slog.LevelWarn
	}
	s.log.Log(r.Context(), lvl, "signaling: proxy headers from a peer not in TrustedProxies ignored; "+
		"if a reverse proxy forwards to this server, name it (-trusted-proxy), or every client counts as its address",
		"addr", r.RemoteAddr, "loopback_exempt_from_caps", peer.IsLoopback(), "count", n)
}
