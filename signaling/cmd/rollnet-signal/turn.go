//go:build !js

package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/signaling/turn"
)

// relayFlags configure the embedded TURN relay (-turn-listen).
type relayFlags struct {
	listen, publicIP, ports string
	cfg                     turn.Config
}

func (f *relayFlags) register(fs *flag.FlagSet) {
	def, _ := turn.Config{}.Check() // the defaults, shown in -h (a zero Config lacks its Secret)
	fs.StringVar(&f.listen, "turn-listen", "", "run a TURN relay on this address, UDP and TCP (e.g. 0.0.0.0:3478); needs $ROLLNET_TURN_SECRET")
	fs.StringVar(&f.publicIP, "turn-public-ip", "", "the relay's address as peers reach it (default: the -turn-listen host, if not 0.0.0.0)")
	fs.StringVar(&f.cfg.Realm, "turn-realm", def.Realm, "the relay's realm")
	fs.StringVar(&f.cfg.RelayBind, "turn-relay-bind", "0.0.0.0", "local address of relay sockets")
	fs.StringVar(&f.ports, "turn-ports", fmt.Sprintf("%d-%d", def.MinPort, def.MaxPort), "UDP port range of relay sockets (the range a firewall opens)")
	fs.IntVar(&f.cfg.MaxAllocations, "turn-max-allocations", def.MaxAllocations, "relay allocations in total")
	fs.IntVar(&f.cfg.MaxAllocationsPerUser, "turn-max-allocations-per-user", def.MaxAllocationsPerUser, "relay allocations per credential (one join)")
	fs.IntVar(&f.cfg.MaxAllocationsPerAddr, "turn-max-allocations-per-addr", def.MaxAllocationsPerAddr, "relay allocations per client IP address, whatever the credentials")
	fs.IntVar(&f.cfg.MaxPermissions, "turn-max-permissions", def.MaxPermissions, "peer addresses per relay allocation")
	fs.IntVar(&f.cfg.MaxChannels, "turn-max-channels", def.MaxChannels, "channel bindings per relay allocation")
	fs.IntVar(&f.cfg.MaxConnsPerAddr, "turn-max-conns-per-addr", def.MaxConnsPerAddr, "TURN-over-TCP connections per IP address")
	fs.BoolVar(&f.cfg.AllowLoopback, "turn-allow-loopback", false, "let the relay forward to loopback addresses (tests on one machine; never on a public server)")
	fs.BoolVar(&f.cfg.AllowPrivate, "turn-allow-private", false, "let the relay forward to private and local ranges (a LAN; never on a public server)")
}

// start runs the relay when -turn-listen is set, and hands its URLs out at
// join with credentials minted from cfg.TURNSecret. It returns nil when
// the relay is not asked for.
func (f *relayFlags) start(cfg *signaling.ServerConfig, log *slog.Logger) (*turn.Relay, error) {
	if f.listen == "" {
		return nil, nil
	}
	if len(cfg.TURNSecret) == 0 {
		return nil, usageError{errors.New("-turn-listen needs $ROLLNET_TURN_SECRET: the relay checks the credentials minted with it")}
	}
	host, _, err := net.SplitHostPort(f.listen)
	if err != nil {
		return nil, usageError{fmt.Errorf("-turn-listen: %w", err)}
	}
	if f.publicIP == "" {
		f.publicIP = host
	}
	if f.cfg.PublicIP = net.ParseIP(f.publicIP); f.cfg.PublicIP == nil || f.cfg.PublicIP.IsUnspecified() {
		return nil, usageError{fmt.Errorf("-turn-public-ip %q: the relay needs the address peers reach it at", f.publicIP)}
	}
	lo, hi, ok := strings.Cut(f.ports, "-")
	if f.cfg.MinPort, err = strconv.Atoi(lo); !ok || err != nil {
		return nil, usageError{fmt.Errorf("-turn-ports %q: want MIN-MAX", f.ports)}
	}
	if f.cfg.MaxPort, err = strconv.Atoi(hi); err != nil || f.cfg.MinPort < 1 {
		return nil, usageError{fmt.Errorf("-turn-ports %q: want MIN-MAX", f.ports)}
	}
	f.cfg.Secret = cfg.TURNSecret
	f.cfg.Logger = log
	r, err := turn.Listen(f.cfg, f.listen)
	if errors.Is(err, rollnet.ErrConfig) {
		return nil, usageError{err} // a flag's value (the ports reversed, ...)
	}
	if err != nil {
		return nil, err // serving failed: the port is taken
	}
	cfg.ICEServers = append(cfg.ICEServers, client.ICEServer{URLs: r.URLs()})
	return r, nil
}

// relayStats serves the relay's counters as JSON (at GET /turn, beside the
// signaling server's routes).
func relayStats(r *turn.Relay) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(r.Stats())
	})
}

// closeRelay stops the relay and logs its counters.
func closeRelay(r *turn.Relay, log *slog.Logger) {
	if r == nil {
		return
	}
	_ = r.Close()
	log.Info("turn relay stats", "stats", fmt.Sprintf("%+v", r.Stats()))
}
