//go:build !js

package netplay

import (
	"context"
	"fmt"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic"
	"github.com/rollnet/rollnet/transport/udp"
)

// dialQUIC dials Config.QUIC's host at addr, over transport/udp when
// overUDP: the host's peer id and the transport the match uses.
func dialQUIC(ctx context.Context, cfg *Config, addr string, overUDP bool, h QUICHost) (transport.Peer, transport.Transport, error) {
	if overUDP {
		return dialHost(ctx, cfg, udp.Dialer{Addr: addr, Config: udp.Config{Grant: h.Grant}}, h.URL)
	}
	return dialHost(ctx, cfg, quic.Dialer{Addr: addr, Config: quic.Config{PinSHA256: h.PinSHA256, Grant: h.Grant}}, h.URL)
}

// dialHost dials the host through hd: the host's peer id, and the
// transport the match uses (impaired if cfg asks). A failed dial wraps
// ErrHostUnreachable, naming the host as name.
func dialHost(ctx context.Context, cfg *Config, hd transport.HostDialer, name string) (transport.Peer, transport.Transport, error) {
	tr, host, err := hd.DialHost(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %s: %w", ErrHostUnreachable, name, err)
	}
	if cfg.Tuning.Impair == nil {
		return host, tr, nil
	}
	imp, err := cfg.Tuning.Impair.Wrap(tr)
	if err != nil {
		_ = tr.Close()
		return "", nil, err
	}
	return host, imp, nil
}
