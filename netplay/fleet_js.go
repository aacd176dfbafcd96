//go:build js

package netplay

import (
	"fmt"

	"github.com/rollnet/rollnet"
)

// connectFleet fails in a browser: the fleet places a client on a host it
// dials over raw QUIC, which a page cannot open.
func connectFleet[S any, I comparable](kind[S, I], Config, func(s *S, inputs []I, frame rollnet.Frame)) (*Match[S, I], error) {
	return nil, fmt.Errorf("%w: Config.Fleet needs a native build: a browser reaches a host over WebTransport", errConfig)
}
