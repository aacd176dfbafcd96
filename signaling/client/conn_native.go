//go:build !js

package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"strings"
	"syscall"

	"github.com/coder/websocket"
)

// dialWebSocket opens the WebSocket with the handshake cfg asks for; a
// refusal before the upgrade is an *HTTPError.
func dialWebSocket(ctx context.Context, url string, cfg Config) (conn, error) {
	hc, ok := cfg.HTTPClient.(*http.Client)
	if cfg.HTTPClient != nil && !ok {
		return nil, fmt.Errorf("%w: HTTPClient is a %T, want an *http.Client", ErrConfig, cfg.HTTPClient)
	}
	ws, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{
		HTTPClient: hc,
		HTTPHeader: cfg.HTTPHeader,
	})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			var msg []byte
			if resp.Body != nil {
				msg, _ = io.ReadAll(io.LimitReader(resp.Body, 1024))
				_ = resp.Body.Close()
			}
			return nil, &HTTPError{Status: resp.StatusCode, Message: strings.TrimSpace(string(msg))}
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, refused{host: hostOf(url), err: err}
		}
		return nil, fmt.Errorf("signaling: dial %s: %w", url, err)
	}
	return wsConn{ws}, nil
}

// refused is a dial nothing answered: it names the host once and asks
// whether the server runs there (the WebSocket library's text repeats
// the URL twice more); it unwraps to the dial's error.
type refused struct {
	host string
	err  error
}

func (r refused) Error() string {
	return "signaling: nothing answers at " + r.host + " (connection refused): is rollnet-signal running there?"
}

func (r refused) Unwrap() error { return r.err }

// hostOf is url's host:port, or url when it has none.
func hostOf(url string) string {
	if u, err := neturl.Parse(url); err == nil && u.Host != "" {
		return u.Host
	}
	return url
}

type wsConn struct{ c *websocket.Conn }

func (w wsConn) read(ctx context.Context) ([]byte, error) {
	_, b, err := w.c.Read(ctx)
	return b, err
}

func (w wsConn) write(ctx context.Context, b []byte) error {
	return w.c.Write(ctx, websocket.MessageText, b)
}

func (w wsConn) close(code int, reason string) error {
	return w.c.Close(websocket.StatusCode(code), reason)
}

func (w wsConn) closeNow() error      { return w.c.CloseNow() }
func (w wsConn) setReadLimit(n int64) { w.c.SetReadLimit(n) }

// connError turns a read or write error into the reason the connection
// ended: a *CloseError for a close frame with a code (nil for a normal
// closure), otherwise an error wrapping ErrClosed.
func connError(err error) error {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		if ce.Code == websocket.StatusNormalClosure {
			return nil
		}
		return &CloseError{Code: int(ce.Code), Reason: ce.Reason}
	}
	return fmt.Errorf("%w: %w", ErrClosed, err)
}
