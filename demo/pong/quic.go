package main

import (
	"crypto/rand"
	"encoding/binary"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/rollnet/rollnet/transport/quic"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

const defaultHostRoom = "rollnet-host" // -connect's room, a dedicated host's: it only names the serve seed

// grantTTL is how long the connect token -token-secret-file mints is
// good for: it is presented once, when the client dials.
const grantTTL = 10 * time.Minute

// checkConnect checks -connect, -pin and -token-secret-file, and mints
// the connect token.
func checkConnect(o *options) error {
	if o.connect == "" {
		switch {
		case o.pin != "":
			return usageError("-pin needs -connect")
		case o.secret != "":
			return usageError("-token-secret-file needs -connect")
		}
		return nil
	}
	u, err := url.Parse(o.connect)
	if err != nil || (u.Scheme != "quic" && u.Scheme != "udp") || u.Hostname() == "" || u.Port() == "" {
		return usageError("-connect wants quic://HOST:PORT or udp://HOST:PORT, got %q", o.connect)
	}
	switch {
	case o.mode != modeAuthority:
		return usageError("-connect is the authority mode's (add -mode authority)")
	case o.signal != "" || o.spectate || o.web != "" || o.offline || o.replay != "":
		return usageError("-connect plays against a dedicated host: not with -signal, -spectate, -web, -offline or -replay")
	case u.Scheme == "udp" && o.pin != "":
		return usageError("-pin is for quic://: a udp:// host has no certificate")
	case u.Scheme == "udp" && o.secret == "":
		return usageError("-connect udp:// needs -token-secret-file: a udp:// host admits connect-token holders only")
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
	if o.secret != "" {
		g, err := mintGrant(o.secret, o.room, u.Host)
		if err != nil {
			return usageError("-token-secret-file: %v", err)
		}
		o.grant = &g
	}
	return nil
}

// mintGrant mints a connect token for the host at addr (as the host
// names itself: its -udp-address or -quic-address, else its listening
// address) with the secret in file, for room and a random client id.
func mintGrant(file, room, addr string) (connecttoken.Grant, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return connecttoken.Grant{}, err
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	return connecttoken.Mint([]byte(strings.TrimSpace(string(b))), connecttoken.Claims{
		Room: room, Client: binary.LittleEndian.Uint64(id[:]), Expires: time.Now().Add(grantTTL), Address: addr,
	}, nil)
}
