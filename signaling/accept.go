//go:build !js

package signaling

import (
	"context"
	"net/http"

	"github.com/coder/websocket"
)

// accept upgrades r for c. Control frames count against the rate limit
// like messages: the library answers pings by itself, and unbounded it
// answered 200,000 pings in 3 s. The callbacks run in whichever goroutine
// reads.
func accept(w http.ResponseWriter, r *http.Request, origins []string, c *peerConn) (*websocket.Conn, error) {
	return websocket.Accept(w, r, &websocket.AcceptOptions{
		OriginPatterns: origins,
		OnPingReceived: func(context.Context, []byte) bool { return c.controlFrame() },
		OnPongReceived: func(context.Context, []byte) { c.controlFrame() },
	})
}
