package client

import "context"

// conn is the WebSocket a Client talks through: coder/websocket natively
// (conn_native.go), the page's own WebSocket in a browser (conn_js.go,
// which links nothing of net/http). Messages go as text.
type conn interface {
	read(ctx context.Context) ([]byte, error)
	write(ctx context.Context, b []byte) error
	// close starts the close handshake with code and reason.
	close(code int, reason string) error
	// closeNow closes without waiting for the other side.
	closeNow() error
	// setReadLimit bounds the messages read from now on.
	setReadLimit(n int64)
}
