package signaling

import (
	"errors"
	"net/http"

	"github.com/coder/websocket"
)

// accept refuses every upgrade in a browser (GOOS=js): the Server compiles
// there, so the package does, but a page cannot accept connections; only
// the Client is for browsers.
func accept(http.ResponseWriter, *http.Request, []string, *peerConn) (*websocket.Conn, error) {
	return nil, errors.New("signaling: the server does not run in a browser")
}

// The native accept counts control frames with it.
var _ = (*peerConn).controlFrame
