//go:build !js

package main

import (
	"context"
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/transport"
)

// authorityFigures runs the transport figures' first-state measurement
// with package authority (transportfigures.Authority): the mode lives
// here, since nothing under internal/ imports one.
type authorityFigures struct{}

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

// Host steps an authoritative host over tr at rate until ctx ends.
func (authorityFigures) Host(ctx context.Context, tr transport.Transport, rate int) (func() error, error) {
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

// FirstState runs an authoritative client over tr against host until it
// applies its first host state, and returns when that was.
func (authorityFigures) FirstState(ctx context.Context, tr transport.Transport, host transport.Peer, rate int) (time.Time, error) {
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
