package signaling

import (
	"context"
	"fmt"

	"github.com/coder/websocket"
)

// dialWebSocket opens the WebSocket through the browser's own. The browser
// makes the handshake: it sends its page's Origin and cookies, and tells a
// page nothing of a refusal before the upgrade (no status, no body), so a
// refused dial is a plain error wrapping ErrClosed, never an *HTTPError.
// ClientConfig.HTTPClient and HTTPHeader cannot apply and are refused with
// ErrConfig rather than silently ignored.
func dialWebSocket(ctx context.Context, url string, cfg ClientConfig) (*websocket.Conn, error) {
	if cfg.HTTPClient != nil || cfg.HTTPHeader != nil {
		return nil, fmt.Errorf("%w: HTTPClient and HTTPHeader do not apply in a browser (it makes the handshake)", ErrConfig)
	}
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("signaling: dial %s: %w: %w", url, ErrClosed, err)
	}
	return ws, nil
}
