package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"

	"github.com/rollnet/rollnet/transport/quic"
)

// The authority mode's direct connection to a dedicated host over QUIC
// (transport/quic), no signaling server:
//
//	go run ./demo/pong host -quic :4433              # logs sha256=HEX
//	go run ./demo/pong -mode authority -connect quic://HOST:4433 -pin HEX
//
// The room (-room, the host's default "rollnet-host") only names the
// match's settings, as the host derives its serve seed from it.

// defaultHostRoom is the room a dedicated host is in by default
// (hostcmd's -room).
const defaultHostRoom = "rollnet-host"

// checkConnect checks -connect and -pin.
func checkConnect(o *options) error {
	if o.connect == "" {
		if o.pin != "" {
			return usageError("-pin needs -connect")
		}
		return nil
	}
	u, err := url.Parse(o.connect)
	if err != nil || u.Scheme != "quic" || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return usageError("-connect wants quic://HOST:PORT, got %q", o.connect)
	}
	if _, _, err := net.SplitHostPort(u.Host); err != nil {
		return usageError("-connect wants quic://HOST:PORT, got %q", o.connect)
	}
	switch {
	case o.mode != modeAuthority:
		return usageError("-connect is the authority mode's (add -mode authority)")
	case o.signal != "" || o.spectate || o.web != "" || o.offline || o.replay != "":
		return usageError("-connect plays against a dedicated host: not with -signal, -spectate, -web, -offline or -replay")
	}
	if o.pin != "" {
		if _, err := quic.ParseHash(o.pin); err != nil {
			return usageError("-pin: %v", err)
		}
	}
	if o.room == "" {
		o.room = defaultHostRoom
	}
	return nil
}

// dialQUIC dials the host of -connect.
func dialQUIC(ctx context.Context, o options, stdout io.Writer) (*quic.Transport, error) {
	u, _ := url.Parse(o.connect) // checked by checkConnect
	cfg := quic.Config{}
	if o.pin != "" {
		cfg.PinSHA256, _ = quic.ParseHash(o.pin)
	}
	dctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	o.say(stdout, "pong: dialing %s", o.connect)
	tr, err := quic.Dial(dctx, u.Host, cfg)
	if err != nil {
		return nil, fmt.Errorf("pong: %w", err)
	}
	return tr, nil
}
