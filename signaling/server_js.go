package signaling

import (
	"errors"
	"net/http"

	"github.com/coder/websocket"
)

// In a browser (GOOS=js) the Server compiles, so the package does, but it
// cannot run: a page cannot accept connections, and the clustering and
// metrics are left out so that a browser build links none of NATS,
// JetStream, Prometheus or protobuf (.ci/run checks it with go list -deps).
// Only signaling/client is for browsers.

// natsConn is the type of ServerConfig.NATS; nothing can set it in a
// browser.
type natsConn = *struct{ noNATSInABrowser struct{} }

// errNoServerInBrowser is why nothing of the server runs in a browser.
var errNoServerInBrowser = errors.New("signaling: the server does not run in a browser")

// accept refuses every upgrade.
func accept(http.ResponseWriter, *http.Request, []string, *peerConn) (*websocket.Conn, error) {
	return nil, errNoServerInBrowser
}

// The native accept counts control frames with it.
var _ = (*peerConn).controlFrame

// cluster has no NATS to share rooms over: NewServer never makes one.
type cluster struct{}

func newCluster(*Server, natsConn, ClusterConfig) (*cluster, error) { return nil, errNoServerInBrowser }
func (*cluster) ready() bool                                        { return false }
func (*cluster) join(*peerConn)                                     {}
func (*cluster) leave(*peerConn)                                    {}
func (*cluster) relay(*peerConn, string, []byte, bool) bool         { return false }
func (*cluster) close()                                             {}
