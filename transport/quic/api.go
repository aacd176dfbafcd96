package quic

import (
	"context"
	"net"

	"github.com/rollnet/rollnet/transport"
)

// The calls below are declared once for both builds; in a browser
// (js/wasm) Listen, Dial and Migrate fail with an error that wraps
// errors.ErrUnsupported, and CertHash and Addr are zero.

// Listen starts a host on addr ("host:port", ":4433"; port 0 picks one):
// one UDP socket, QUIC with RFC 9221 datagrams, ALPN "rollnet/1". Clients are
// admitted after the handshake and the hello (see the package
// documentation); each admitted connection is a peer.
func Listen(addr string, cfg Config) (Transport, error) { return some(listenUDP(addr, cfg)) }

// Dial connects to the host at addr ("host:port"), runs the hello
// exchange, and returns a Transport whose one peer is the host (its id is
// Host()). It fails with ErrPinMismatch for a certificate other than
// Config.PinSHA256, ErrUntrusted for one that does not verify when no
// hash is pinned, ErrRefused when the host does not admit this client,
// or ctx's error.
func Dial(ctx context.Context, addr string, cfg Config) (Transport, error) {
	return some(dialUDP(ctx, addr, cfg))
}

// some is t as a Transport: nil (not a nil *qtransport) when it failed.
func some(t *qtransport, err error) (Transport, error) {
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Host: see Transport.
func (t *qtransport) Host() transport.Peer {
	if t.cl == nil {
		return ""
	}
	return t.cl.host
}

// Migrate: see Transport.
func (t *qtransport) Migrate(ctx context.Context) error { return t.migrate(ctx) }

// CertHash: see Transport.
func (t *qtransport) CertHash() [32]byte { return t.certHash() }

// Addr: see Transport.
func (t *qtransport) Addr() net.Addr { return t.addr() }
