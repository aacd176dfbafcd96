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
// one UDP socket, QUIC with RFC 9221 datagrams, ALPN Protocol. Clients are
// admitted after the handshake and the hello (see the package
// documentation); each admitted connection is a peer.
func Listen(addr string, cfg Config) (*Transport, error) { return listenUDP(addr, cfg) }

// Dial connects to the host at addr ("host:port"), runs the hello
// exchange, and returns a Transport whose one peer is the host (its id is
// Host()). It fails with ErrPinMismatch for a certificate other than
// Config.PinSHA256, ErrUntrusted for one that does not verify when no
// hash is pinned, ErrRefused when the host does not admit this client,
// or ctx's error.
func Dial(ctx context.Context, addr string, cfg Config) (*Transport, error) {
	return dialUDP(ctx, addr, cfg)
}

// Host is the host's id on a client Transport (its only peer), and the
// zero Peer on a host.
func (t *Transport) Host() transport.Peer {
	if t.cl == nil {
		return ""
	}
	return t.cl.host
}

// Migrate moves a client's connection to a new UDP socket (a phone that
// changed networks, a NAT that forgot the mapping): it opens the socket,
// probes the new path, and switches to it once the host answered. The
// connection, and so the peer on both sides, is the same; datagrams sent
// meanwhile travel the old path. The old socket stays open until Close
// (quic-go closes a connection with the socket it started on); at most
// Config.Tuning.MaxMigrations are held.
func (t *Transport) Migrate(ctx context.Context) error { return t.migrate(ctx) }

// CertHash is the SHA-256 of the host's certificate, for clients to pin
// (Config.PinSHA256) and browsers to name in serverCertificateHashes. It
// is zero on a client.
func (t *Transport) CertHash() [32]byte { return t.certHash() }

// Addr is the host's UDP socket address (nil on a client).
func (t *Transport) Addr() net.Addr { return t.addr() }
