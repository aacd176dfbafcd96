//go:build !js

package transportfigures

import (
	"context"
	"time"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// Authority is the authoritative mode the first-state figure runs: the
// caller's (bench passes package authority's), since no package under
// internal/ imports a mode.
type Authority interface {
	// Host steps a host over tr at rate frames a second until ctx ends;
	// stop waits for that end, closes the host and reports its error.
	Host(ctx context.Context, tr transport.Transport, rate int) (stop func() error, err error)
	// FirstState runs a client over tr against host until it applies its
	// first host state, and returns when that was.
	FirstState(ctx context.Context, tr transport.Transport, host transport.Peer, rate int) (time.Time, error)
}

func quicConnectState(cfg Config) (time.Duration, error) {
	h, err := quic.Listen("127.0.0.1:0", quic.Config{})
	if err != nil {
		return 0, err
	}
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Limit)
	defer cancel()
	stop, err := cfg.Authority.Host(ctx, h, cfg.Rate)
	if err != nil {
		return 0, err
	}
	defer func() { cancel(); _ = stop() }()
	start := time.Now()
	c, err := quic.Dial(ctx, h.Addr().String(), quic.Config{PinSHA256: h.CertHash()})
	if err != nil {
		return 0, err
	}
	defer c.Close()
	at, err := cfg.Authority.FirstState(ctx, c, c.Host(), cfg.Rate)
	return at.Sub(start), err
}

func webrtcConnectState(cfg Config) (time.Duration, error) {
	sig, err := startSignaling()
	if err != nil {
		return 0, err
	}
	defer sig.close()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Limit)
	defer cancel()
	url := sig.room()
	h, err := webrtc.Dial(ctx, url, webrtc.Config{LoopbackOnly: true})
	if err != nil {
		return 0, err
	}
	defer h.Close()
	stop, err := cfg.Authority.Host(ctx, h, cfg.Rate)
	if err != nil {
		return 0, err
	}
	defer func() { cancel(); _ = stop() }()
	start := time.Now()
	c, host, err := webrtcClient(ctx, url, h.Local())
	if err != nil {
		return 0, err
	}
	defer c.Close()
	at, err := cfg.Authority.FirstState(ctx, c, host, cfg.Rate)
	return at.Sub(start), err
}
