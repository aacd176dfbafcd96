//go:build !js

package signaling

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/coder/websocket"
)

// dialWebSocket opens the WebSocket with the handshake cfg asks for; a
// refusal before the upgrade is an *HTTPError.
func dialWebSocket(ctx context.Context, url string, cfg ClientConfig) (*websocket.Conn, error) {
	ws, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{
		HTTPClient: cfg.HTTPClient,
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
	return ws, nil
}
