package main

import (
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport/quic"
)

// The authority mode's direct connection to a dedicated host over QUIC
// (netplay.ConnectQUIC), no signaling server:
//
//	go run ./demo/pong host -quic :4433              # logs sha256=HEX
//	go run ./demo/pong -mode authority -connect quic://HOST:4433 -pin HEX
//
// The room (-room, by default hostcmd's "rollnet-host") only names the
// match's settings: the host derives its serve seed from it.
const defaultHostRoom = "rollnet-host"

// checkConnect checks -connect and -pin.
func checkConnect(o *options) error {
	if o.connect == "" {
		if o.pin != "" {
			return usageError("-pin needs -connect")
		}
		return nil
	}
	if err := (netplay.QUICHost{URL: o.connect}).Validate(); err != nil {
		return usageError("-connect wants quic://HOST:PORT, got %q", o.connect)
	}
	switch {
	case o.mode != modeAuthority:
		return usageError("-connect is the authority mode's (add -mode authority)")
	case o.signal != "" || o.spectate || o.web != "" || o.offline || o.replay != "":
		return usageError("-connect plays against a dedicated host: not with -signal, -spectate, -web, -offline or -replay")
	}
	if o.pin != "" {
		pin, err := quic.ParseHash(o.pin)
		if err != nil {
			return usageError("-pin: %v", err)
		}
		o.pinHash = pin
	}
	if o.room == "" {
		o.room = defaultHostRoom
	}
	return nil
}
