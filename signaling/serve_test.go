package signaling

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/client"
)

// served is a Server run by Serve on a loopback listener, as the command
// runs it.
type served struct {
	*harness
	addr string
}

func serve(t *testing.T, cfg ServerConfig) *served {
	t.Helper()
	srv, err := NewServer(cfg)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	t.Cleanup(func() {
		require.NoError(t, srv.Close())
		require.ErrorIs(t, <-errc, http.ErrServerClosed)
	})
	return &served{harness: &harness{t: t, srv: srv}, addr: ln.Addr().String()}
}

func (s *served) url(path string) string { return "ws://" + s.addr + path }

// dialFrom joins path from the loopback address from (127.0.0.0/8 is all
// local), with header added to the handshake.
func (s *served) dialFrom(from, path string, header http.Header) (*client.Client, error) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	tr := &http.Transport{DialContext: d.DialContext}
	s.t.Cleanup(tr.CloseIdleConnections)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	c, err := client.Dial(ctx, s.url(path), client.Config{HTTPClient: &http.Client{Transport: tr}, HTTPHeader: header})
	if err == nil {
		s.t.Cleanup(func() { _ = c.Close() })
	}
	return c, err
}

// rawTCP opens a TCP connection from the loopback address from.
func (s *served) rawTCP(from string) net.Conn {
	s.t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", s.addr)
	require.NoError(s.t, err)
	s.t.Cleanup(func() { _ = c.Close() })
	return c
}

// readAll reads c until the server closes it (bounded by waitTimeout, a
// bound on a hang, not a measurement).
func readAll(t *testing.T, c net.Conn) string {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(waitTimeout)))
	b, err := io.ReadAll(c)
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server did not close the connection")
	return string(b)
}

var hoard = flag.Int("signal.hoard", 40,
	"TCP connections one address opens in TestServeCapsConnectionsPerAddrAtAccept (the issue's attack is 1000)")

func TestServeCapsConnectionsPerAddrAtAccept(t *testing.T) {
	const perAddr = 4
	attackers := *hoard
	const held = perAddr + acceptSlack
	s := serve(t, ServerConfig{Tuning: ServerTuning{MaxConnsPerAddr: perAddr}})
	// One address opens many connections and sends nothing.
	var conns []net.Conn
	for range attackers {
		conns = append(conns, s.rawTCP("127.0.0.1"))
	}
	eventually(t, func() bool { return s.srv.Stats().AcceptRefused == uint64(attackers-held) }, "refused at accept")
	require.Equal(t, held, s.srv.Stats().Sockets, "only the cap is held")
	refused := 0
	for _, c := range conns[held:] {
		if strings.HasPrefix(readAll(t, c), "HTTP/1.1 429 ") {
			refused++
		}
	}
	require.Equal(t, attackers-held, refused, "each refused one is told why")

	// Others are served meanwhile, and the capped address is refused.
	a, err := s.dialFrom("127.0.0.2", "/room/x", nil)
	require.NoError(t, err)
	b, err := s.dialFrom("127.0.0.3", "/room/x", nil)
	require.NoError(t, err)
	require.Equal(t, client.Event{Kind: client.PeerJoined, Peer: b.ID()}, next(t, a))
	// (The 429 is written before the request is read: the HTTP client
	// may see only a dropped connection.)
	_, err = s.dialFrom("127.0.0.1", "/room/x", nil)
	require.Error(t, err)
	require.Equal(t, uint64(attackers-held+1), s.srv.Stats().AcceptRefused)

	// The slots come back when the connections close.
	for _, c := range conns {
		require.NoError(t, c.Close())
	}
	eventually(t, func() bool { return s.srv.Stats().Sockets == 2 }, "attackers' slots released")
	_, err = s.dialFrom("127.0.0.1", "/room/x", nil)
	require.NoError(t, err)
}

func TestServeCapsConnectionsInTotalAtAccept(t *testing.T) {
	s := serve(t, ServerConfig{Tuning: ServerTuning{MaxConns: 3}})
	for i := range 3 {
		s.rawTCP("127.0.0." + string(rune('2'+i)))
	}
	c := s.rawTCP("127.0.0.9")
	require.True(t, strings.HasPrefix(readAll(t, c), "HTTP/1.1 429 "))
	require.Equal(t, uint64(1), s.srv.Stats().AcceptRefused)
}

func TestServeIdleAndHeaderLimits(t *testing.T) {
	s := serve(t, ServerConfig{Tuning: ServerTuning{IdleTimeout: 50 * time.Millisecond, HeaderTimeout: 50 * time.Millisecond}})

	// A keep-alive connection is closed once idle.
	c := s.rawTCP("127.0.0.1")
	_, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(waitTimeout))) // a bound on a hang
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, resp.Body.Close())
	_, err = br.ReadByte()
	require.ErrorIs(t, err, io.EOF, "idle keep-alive connection closed")

	// Headers that never end (slowloris) are cut.
	c = s.rawTCP("127.0.0.1")
	_, err = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
	require.NoError(t, err)
	readAll(t, c)

	// Headers over MaxHeaderBytes are refused, and not kept.
	s2 := serve(t, ServerConfig{})
	c = s2.rawTCP("127.0.0.1")
	go func() { // the server may close before all is written
		_, _ = io.WriteString(c, "GET /room/x HTTP/1.1\r\nHost: x\r\nX-Big: "+strings.Repeat("a", 1<<20)+"\r\n\r\n")
	}()
	require.True(t, strings.HasPrefix(readAll(t, c), "HTTP/1.1 431 "))
	eventually(t, func() bool { return s2.srv.Stats().Sockets == 0 }, "closed")
}

func TestServeTrustedProxy(t *testing.T) {
	s := serve(t, ServerConfig{
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8")},
		Tuning:         ServerTuning{MaxConnsPerAddr: 2},
	})
	xff := func(v string) http.Header { return http.Header{"X-Forwarded-For": {v}} }
	// Through the proxy, each client has its own count, and the proxy's
	// own connections are not capped at accept.
	for range 2 {
		_, err := s.dialFrom("127.0.0.1", "/room/p", xff("203.0.113.1"))
		require.NoError(t, err)
	}
	_, err := s.dialFrom("127.0.0.1", "/room/p", xff("203.0.113.1"))
	require.ErrorIs(t, err, client.ErrTooManyConnections)
	// What a client wrote left of its own address is not read; trusted
	// hops right of it are skipped.
	_, err = s.dialFrom("127.0.0.1", "/room/p", xff("198.51.100.7, 203.0.113.1, 10.1.2.3"))
	require.ErrorIs(t, err, client.ErrTooManyConnections)
	_, err = s.dialFrom("127.0.0.1", "/room/q", http.Header{"Forwarded": {`for=203.0.113.1, for="[2001:db8::1]:4711";proto=https`}})
	require.NoError(t, err)
	_, err = s.dialFrom("127.0.0.1", "/room/q", xff("203.0.113.2"))
	require.NoError(t, err)

	// From an address that is not a trusted proxy the headers are ignored.
	for i := range 2 {
		_, err := s.dialFrom("127.0.0.2", "/room/r", xff("192.0.2."+string(rune('1'+i))))
		require.NoError(t, err)
	}
	_, err = s.dialFrom("127.0.0.2", "/room/r", xff("192.0.2.9"))
	require.ErrorIs(t, err, client.ErrTooManyConnections)
}

func TestForwardedFor(t *testing.T) {
	srv, err := NewServer(ServerConfig{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	require.NoError(t, err)
	for name, tc := range map[string]struct {
		h    http.Header
		want string
	}{
		"none":               {http.Header{}, "10.0.0.1"},
		"xff":                {http.Header{"X-Forwarded-For": {"192.0.2.1"}}, "192.0.2.1"},
		"xff spoofed left":   {http.Header{"X-Forwarded-For": {"6.6.6.6, 192.0.2.1"}}, "192.0.2.1"},
		"xff two lines":      {http.Header{"X-Forwarded-For": {"6.6.6.6", "192.0.2.1, 10.9.9.9"}}, "192.0.2.1"},
		"xff garbage":        {http.Header{"X-Forwarded-For": {"6.6.6.6, nonsense"}}, "10.0.0.1"},
		"xff v6":             {http.Header{"X-Forwarded-For": {"2001:db8::2"}}, "2001:db8::2"},
		"forwarded":          {http.Header{"Forwarded": {"for=192.0.2.60;proto=http;by=203.0.113.43"}}, "192.0.2.60"},
		"forwarded v6 port":  {http.Header{"Forwarded": {`For="[2001:db8:cafe::17]:4711"`}}, "2001:db8:cafe::17"},
		"forwarded wins":     {http.Header{"Forwarded": {"for=192.0.2.60"}, "X-Forwarded-For": {"6.6.6.6"}}, "192.0.2.60"},
		"forwarded unknown":  {http.Header{"Forwarded": {"for=unknown"}}, "10.0.0.1"},
		"forwarded no for":   {http.Header{"Forwarded": {"proto=https"}}, "10.0.0.1"},
		"all trusted":        {http.Header{"X-Forwarded-For": {"10.1.1.1, 10.2.2.2"}}, "10.1.1.1"},
		"mapped v4 in chain": {http.Header{"X-Forwarded-For": {"::ffff:192.0.2.1"}}, "192.0.2.1"},
	} {
		require.Equal(t, tc.want, srv.clientAddr(&http.Request{RemoteAddr: "10.0.0.1:4000", Header: tc.h}), name)
	}
	require.NoError(t, srv.Close())
	_, err = NewServer(ServerConfig{TrustedProxies: []netip.Prefix{{}}})
	require.ErrorIs(t, err, client.ErrConfig)
}
