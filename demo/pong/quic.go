package main

import (
	"net/url"

	"github.com/rollnet/rollnet/transport/quic"
)

const defaultHostRoom = "rollnet-host" // -connect's room, a dedicated host's: it only names the serve seed

// checkConnect checks -connect and -pin.
func checkConnect(o *options) error {
	if o.connect == "" {
		if o.pin != "" {
			return usageError("-pin needs -connect")
		}
		return nil
	}
	if u, err := url.Parse(o.connect); err != nil || u.Scheme != "quic" || u.Hostname() == "" || u.Port() == "" {
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
