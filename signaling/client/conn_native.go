//go:build !js

package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

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
		return nil, fmt.Errorf("signaling: dial %s: %w", url, err)
	}
	return wsConn{ws}, nil
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
