//go:build !js

package netplay

import (
	"context"
	"fmt"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic"
)

// dialQUIC dials ConnectQUIC's host at addr: the host's peer id and the
// transport the match uses.
func dialQUIC(ctx context.Context, cfg *Config, addr string, h QUICHost) (transport.Peer, transport.Transport, error) {
	qt, tr, err := dialHost(ctx, cfg, addr, quic.Config{PinSHA256: h.PinSHA256, Grant: h.Grant}, h.URL)
	if err != nil {
		return "", nil, err
	}
	return qt.Host(), tr, nil
}

// dialHost dials the host at addr (HOST:PORT) over QUIC with qc: the QUIC
// transport, and the one the match uses (impaired if cfg asks). A failed
// dial wraps ErrHostUnreachable, naming the host as name.
func dialHost(ctx context.Context, cfg *Config, addr string, qc quic.Config, name string) (*quic.Transport, transport.Transport, error) {
	qt, err := quic.Dial(ctx, addr, qc)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %w", ErrHostUnreachable, name, err)
	}
	if cfg.Impair == nil {
		return qt, qt, nil
	}
	imp, err := cfg.Impair.Wrap(qt)
	if err != nil {
		_ = qt.Close()
		return nil, nil, err
	}
	return qt, imp, nil
}
