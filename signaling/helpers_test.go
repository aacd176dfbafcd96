package signaling

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rollnet/rollnet/signaling/client"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// waitTimeout bounds every wait in these tests; nothing sleeps.
const waitTimeout = 10 * time.Second

type harness struct {
	t   *testing.T
	srv *Server
	hs  *httptest.Server
}

// start serves cfg on a loopback httptest server for the test's duration.
func start(t *testing.T, cfg ServerConfig) *harness {
	t.Helper()
	return startWith(t, cfg, nil)
}

// startWith is start, with wrap (when not nil) applied to the listener.
func startWith(t *testing.T, cfg ServerConfig, wrap func(net.Listener) net.Listener) *harness {
	t.Helper()
	srv, err := NewServer(cfg)
	require.NoError(t, err)
	hs := httptest.NewUnstartedServer(srv)
	if wrap != nil {
		hs.Listener = wrap(hs.Listener)
	}
	hs.Start()
	t.Cleanup(func() {
		require.NoError(t, srv.Close())
		hs.Close()
		http.DefaultClient.CloseIdleConnections()
	})
	return &harness{t: t, srv: srv, hs: hs}
}

func (h *harness) url(path string) string {
	return "ws" + strings.TrimPrefix(h.hs.URL, "http") + path
}

// dial joins path with a Client, closed at cleanup.
func (h *harness) dial(path string) *client.Client {
	h.t.Helper()
	c, err := h.tryDial(path)
	require.NoError(h.t, err)
	return c
}

func (h *harness) tryDial(path string) (*client.Client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	c, err := client.Dial(ctx, h.url(path), client.Config{})
	if err == nil {
		h.t.Cleanup(func() { _ = c.Close() })
	}
	return c, err
}

// raw opens a WebSocket without joining, closed at cleanup.
func (h *harness) raw(path string) *websocket.Conn {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, h.url(path), nil)
	require.NoError(h.t, err)
	ws.SetReadLimit(-1)
	h.t.Cleanup(func() { _ = ws.CloseNow() })
	return ws
}

// rawJoin opens a WebSocket and joins, returning the join reply.
func (h *harness) rawJoin(path string) (*websocket.Conn, envelope) {
	h.t.Helper()
	ws := h.raw(path)
	rawWrite(h.t, ws, `{"v":1,"type":"join"}`)
	e := rawRead(h.t, ws)
	require.Equal(h.t, typeJoin, e.Type)
	return ws, e
}

func rawWrite(t *testing.T, ws *websocket.Conn, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	require.NoError(t, ws.Write(ctx, websocket.MessageText, []byte(msg)))
}

func rawRead(t *testing.T, ws *websocket.Conn) envelope {
	t.Helper()
	b := rawReadBytes(t, ws)
	e, err := parseEnvelope([]byte(b), fromServer)
	require.NoError(t, err, "%s", b)
	return e
}

// rawReadBytes reads one message of ws as it is.
func rawReadBytes(t *testing.T, ws *websocket.Conn) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	_, b, err := ws.Read(ctx)
	require.NoError(t, err)
	return string(b)
}

// rawCloseStatus reads until the connection ends and returns the close code.
func rawCloseStatus(t *testing.T, ws *websocket.Conn) (websocket.StatusCode, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	for {
		_, _, err := ws.Read(ctx)
		if err != nil {
			var ce websocket.CloseError
			require.ErrorAs(t, err, &ce, "want a close frame")
			return ce.Code, ce.Reason
		}
	}
}

// next returns c's next event.
func next(t *testing.T, c *client.Client) client.Event {
	t.Helper()
	select {
	case ev, ok := <-c.Events():
		require.True(t, ok, "events closed: %v", c.Err())
		return ev
	case <-time.After(waitTimeout):
		t.Fatal("no event")
	}
	return client.Event{}
}

// ended waits for c's Events to close and returns Err.
func ended(t *testing.T, c *client.Client) error {
	t.Helper()
	timeout := time.After(waitTimeout)
	for {
		select {
		case _, ok := <-c.Events():
			if !ok {
				return c.Err()
			}
		case <-timeout:
			t.Fatal("events not closed")
		}
	}
}

// eventually waits until cond holds (polling the server's state, which has
// no channel to wait on).
func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	require.Eventually(t, cond, waitTimeout, time.Millisecond, msg)
}

// fakeClock is a clock tests move by hand.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}
func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

func offer(s string) client.Signal {
	return client.Signal{Kind: client.SignalOffer, Payload: []byte(`{"sdp":"` + s + `"}`)}
}

func send(t *testing.T, from *client.Client, to string, s client.Signal) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	require.NoError(t, from.Send(ctx, to, s))
}

// smallSendBuffers makes every accepted connection's kernel send buffer
// small, so that a peer that does not read blocks the server's writes after
// kilobytes instead of megabytes.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// recv receives from c, failing t, saying what it waited for, if nothing
// comes within waitTimeout.
func recv[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(waitTimeout):
		t.Fatalf("waited %v for %s", waitTimeout, what)
	}
	var zero T
	return zero
}
