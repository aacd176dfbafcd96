package quic

import (
	"context"

	"github.com/rollnet/rollnet/transport"
)

// Dialer dials a host over QUIC: the transport.HostDialer of a client of
// a dedicated host.
type Dialer struct {
	// Addr is the host's address, HOST:PORT.
	Addr string
	// Config configures the client Transport (PinSHA256, Grant, ...).
	Config Config
}

// DialHost is Dial(ctx, d.Addr, d.Config): the client Transport and its
// Host.
func (d Dialer) DialHost(ctx context.Context) (transport.Transport, transport.Peer, error) {
	t, err := Dial(ctx, d.Addr, d.Config)
	if err != nil {
		return nil, "", err
	}
	return t, t.Host(), nil
}

var _ transport.HostDialer = Dialer{}
