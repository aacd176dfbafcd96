//go:build js

package netplay

import (
	"context"
	"fmt"

	"github.com/rollnet/rollnet/transport"
)

// dialQUIC fails in a browser: a page cannot open a raw QUIC connection
// (it reaches a host over WebTransport), and linking transport/quic's
// client would put crypto/tls and x509 in every browser game
// (1.4 MB of the pong's wasm, 0.4 MB gzipped).
func dialQUIC(context.Context, *Config, string, bool, QUICHost) (transport.Peer, transport.Transport, error) {
	return "", nil, fmt.Errorf("%w: Config.QUIC needs a native build: a browser reaches a host over WebTransport", errConfig)
}
