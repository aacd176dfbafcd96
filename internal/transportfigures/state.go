//go:build !js

package transportfigures

import (
	"context"
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// The first-state figure's game: one counter per player.
type counters struct {
	N     [2]int32
	Frame int32
	_     [4]byte
}

func count(s *counters, in []int8, f rollnet.Frame) {
	for p, v := range in {
		s.N[p] += int32(v)
	}
	s.Frame = int32(f)
}

// runHost steps an authoritative host over tr at rate until ctx ends.
func runHost(ctx context.Context, tr transport.Transport, rate int) (func() error, error) {
	h, err := authority.NewHost[counters](authority.HostConfig[int8]{Players: 2,
		Net: rollnet.NetConfig{FrameRate: rate, DisconnectTimeout: 5 * time.Second}}, tr, count)
	if err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() {
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				done <- nil
				return
			case <-tick.C:
			}
			if err := h.AdvanceFrame(); err != nil {
				done <- err
				return
			}
		}
	}()
	return func() error {
		err := <-done
		_ = h.Close()
		return err
	}, nil
}

// firstState runs an authoritative client over tr against host until it
// applies its first host state, and returns when that was.
func firstState(ctx context.Context, tr transport.Transport, host transport.Peer, rate int) (time.Time, error) {
	cl, err := authority.NewClient[counters](authority.ClientConfig{Host: host, Players: 2,
		Net: rollnet.NetConfig{FrameRate: rate, DisconnectTimeout: 5 * time.Second}}, tr, count)
	if err != nil {
		return time.Time{}, err
	}
	defer cl.Close()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("no host state: %w", ctx.Err())
		case <-time.After(time.Millisecond):
		}
		now := time.Now()
		if _, err := cl.Update(now.Sub(last)); err != nil {
			return time.Time{}, err
		}
		last = now
		if _, f := cl.HostState(); f != rollnet.NoFrame {
			return now, nil
		}
	}
}

func quicConnectState(cfg Config) (time.Duration, error) {
	h, err := quic.Listen("127.0.0.1:0", quic.Config{})
	if err != nil {
		return 0, err
	}
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Limit)
	defer cancel()
	stop, err := runHost(ctx, h, cfg.Rate)
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
	at, err := firstState(ctx, c, c.Host(), cfg.Rate)
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
	stop, err := runHost(ctx, h, cfg.Rate)
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
	at, err := firstState(ctx, c, host, cfg.Rate)
	return at.Sub(start), err
}
