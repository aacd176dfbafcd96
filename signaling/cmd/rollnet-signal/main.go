//go:build !js

// Command rollnet-signal runs rollnet's signaling server: WebSocket rooms
// at /room/NAME and /room?next=N, the protocol version and health as JSON
// on GET /, and "ok" on /healthz.
//
//	go run ./signaling/cmd/rollnet-signal -addr 127.0.0.1:8080
//	go run ./signaling/cmd/rollnet-signal -stun stun:stun.l.google.com:19302 \
//	    -turn turn:turn.example.org:3478 -turn-user u -turn-credential p
//	ROLLNET_SIGNAL_SECRET=s3cret go run ./signaling/cmd/rollnet-signal   # tokens required
//	ROLLNET_SIGNAL_SECRET=s3cret go run ./signaling/cmd/rollnet-signal -token-room ranked-   # only for rooms ranked-*
//	ROLLNET_SIGNAL_SECRET=s3cret go run ./signaling/cmd/rollnet-signal -mint-token lobby -token-ttl 1h
//	ROLLNET_TURN_SECRET=t go run ./signaling/cmd/rollnet-signal -turn turn:turn.example.org:3478  # per-client TURN credentials
//	ROLLNET_TURN_SECRET=t go run ./signaling/cmd/rollnet-signal -turn-listen 0.0.0.0:3478 -turn-public-ip 203.0.113.7  # embedded relay
//
//	go run ./signaling/cmd/rollnet-signal -addr :443 -tls-cert cert.pem -tls-key key.pem   # wss:// natively
//	go run ./signaling/cmd/rollnet-signal -trusted-proxy 10.0.0.5   # behind a reverse proxy at 10.0.0.5
//
// Behind a reverse proxy, name it with -trusted-proxy (an address or a
// CIDR prefix, repeatable): the per-address limits then apply to the client
// address the proxy writes in Forwarded or X-Forwarded-For, and to nobody
// else's (without it, every client shares the proxy's 32 connections).
//
// From real addresses the caps hold per address: one address takes at
// most half a named room's places (4 of 8), so two addresses can fill a
// room. A game whose rooms must stay open to their own players signs
// join tokens for them: -token-room PREFIX (repeatable) requires one for
// the rooms under PREFIX only, and leaves the others open.
//
// Logs are structured (log/slog) on stderr: joins (with the peers the
// newcomer meets), filled next=N rooms and leaves (with why) at info. SIGINT
// or SIGTERM closes every connection with 1001 (going away: clients join
// again, through another instance) and exits.
//
// Several instances behind a load balancer share their rooms over NATS
// (JetStream enabled), as if they were one:
//
//	nats-server -js &
//	go run ./signaling/cmd/rollnet-signal -addr :8081 -nats nats://127.0.0.1:4222 -metrics 127.0.0.1:9091
//	go run ./signaling/cmd/rollnet-signal -addr :8082 -nats nats://127.0.0.1:4222 -metrics 127.0.0.1:9092
//
// -metrics serves Prometheus metrics at /metrics (see
// signaling.Server.MetricsHandler; with -turn-listen also the relay's
// rollnet_turn_* allocations and refusals), and /healthz and /readyz (503 while
// NATS is unreachable or shutting down), on their own address.
//
// Exit status: 0 after a shutdown by signal, or -h; 2 for a bad flag or
// flag value (one line on stderr, no usage); 1 when serving fails (the
// address is taken, the certificate does not load).
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/internal/natsauth"
	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/signaling/internal/wire"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runMain(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// runMain runs the command and returns its exit status (see the package
// doc).
func runMain(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	err := run(ctx, args, stdout, stderr, getenv, nil)
	var ue usageError
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "rollnet-signal: %v\nrun 'rollnet-signal -h' for usage\n", ue.err)
		return 2
	default:
		fmt.Fprintln(stderr, "rollnet-signal:", err)
		return 1
	}
}

// usageError is a bad flag or flag value: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// prefixFlag collects addresses or CIDR prefixes (repeatable, comma-separated).
type prefixFlag []netip.Prefix

func (l *prefixFlag) String() string { return fmt.Sprint([]netip.Prefix(*l)) }
func (l *prefixFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		p, err := netip.ParsePrefix(v)
		if err != nil {
			ip, ierr := netip.ParseAddr(v)
			if ierr != nil {
				return fmt.Errorf("%q is neither an address nor a CIDR prefix", v)
			}
			p = netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen())
		}
		*l = append(*l, p)
	}
	return nil
}

// listFlag collects a repeatable or comma-separated string flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// run parses args, serves until ctx ends, and shuts down. ready, when not
// nil, is called with the listening address.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string, ready func(addr string)) error {
	fs := flag.NewFlagSet("rollnet-signal", flag.ContinueOnError)
	fs.SetOutput(io.Discard)                   // a flag error is one line, from runMain
	def, _ := signaling.ServerConfig{}.Check() // the defaults, shown in -h
	fleetDef, _ := fleet.PlacerConfig{}.Check()
	var (
		cfg         signaling.ServerConfig
		addr        = fs.String("addr", "127.0.0.1:8080", "listen address")
		stun, turn  listFlag
		origins     listFlag
		tokenRooms  listFlag
		turnUser    = fs.String("turn-user", "", "TURN username")
		turnCred    = fs.String("turn-credential", "", "TURN credential")
		mint        = fs.String("mint-token", "", "print a join token for this room (\"next=N\" for grouping) and exit")
		ttl         = fs.Duration("token-ttl", time.Hour, "lifetime of a token printed by -mint-token")
		logLevel    = fs.String("log-level", "info", "debug, info, warn or error")
		logJSON     = fs.Bool("log-json", false, "log JSON instead of text")
		shutdown    = fs.Duration("shutdown-timeout", 5*time.Second, "grace for HTTP requests at shutdown")
		tlsCert     = fs.String("tls-cert", "", "serve TLS (wss://) with this PEM certificate (chain), with -tls-key")
		tlsKey      = fs.String("tls-key", "", "PEM private key for -tls-cert")
		proxies     prefixFlag
		relay       relayFlags
		natsURL     = fs.String("nats", "", "join the instances sharing rooms over this NATS (nats://HOST:4222, JetStream enabled); empty: a single instance")
		natsAuth    natsauth.Flags
		natsName    = fs.String("nats-name", def.Cluster.Name, "name of the set of instances on that NATS (bucket and subjects)")
		fleetSecret = fs.String("fleet-secret-file", "", "with -nats: place matches on the fleet's hosts (POST "+fleet.PlacePath+", GET "+fleet.ViewPath+"), minting connect tokens with the secret in this file (the hosts' -token-secret-file)")
		fleetPolicy = fs.String("fleet-policy", "fill", "with -fleet-secret-file: fill (the fullest host first) or spread (the emptiest first)")
		fleetDead   = fs.Duration("fleet-dead-after", fleetDef.Tuning.DeadAfter, "with -fleet-secret-file: a host whose heartbeat is not seen this long is gone")
		fleetRate   = fs.Int("fleet-rate", fleetDef.AddrRate, "with -fleet-secret-file: placement requests a second per client address")
		fleetBurst  = fs.Int("fleet-burst", fleetDef.AddrBurst, "with -fleet-secret-file: placement request burst per client address")
		metrics     = fs.String("metrics", "", "serve Prometheus metrics at http://ADDR/metrics, with /healthz and /readyz (e.g. 127.0.0.1:9090)")
	)
	fs.DurationVar(&cfg.Cluster.DeadAfter, "nats-dead-after", def.Cluster.DeadAfter, "an instance silent this long is dead: its clients leave their rooms")
	relay.register(fs)
	natsAuth.Register(fs)
	fs.IntVar(&cfg.MaxRoomSize, "max-room", def.MaxRoomSize, "peers per room")
	fs.IntVar(&cfg.Tuning.MaxMessageSize, "max-message", def.Tuning.MaxMessageSize, "bytes per incoming message")
	fs.IntVar(&cfg.Tuning.MessageRate, "rate", def.Tuning.MessageRate, "messages per second per connection")
	fs.IntVar(&cfg.Tuning.MessageBurst, "burst", def.Tuning.MessageBurst, "message burst per connection")
	fs.IntVar(&cfg.Tuning.MaxConnsPerAddr, "max-conns-per-addr", def.Tuning.MaxConnsPerAddr, "connections per IP address")
	fs.IntVar(&cfg.Tuning.MaxConns, "max-conns", def.Tuning.MaxConns, "connections in total")
	fs.IntVar(&cfg.Tuning.SendQueue, "send-queue", def.Tuning.SendQueue, "messages queued per connection before it is dropped as a slow consumer")
	fs.DurationVar(&cfg.Tuning.JoinTimeout, "join-timeout", def.Tuning.JoinTimeout, "time to join after connecting")
	fs.DurationVar(&cfg.Tuning.PingInterval, "ping-interval", def.Tuning.PingInterval, "interval between pings")
	fs.DurationVar(&cfg.Tuning.PingTimeout, "ping-timeout", def.Tuning.PingTimeout, "time to answer a ping")
	fs.DurationVar(&cfg.Tuning.TURNCredentialTTL, "turn-ttl", def.Tuning.TURNCredentialTTL, "lifetime of TURN credentials minted with $ROLLNET_TURN_SECRET")
	fs.DurationVar(&cfg.Tuning.WriteTimeout, "write-timeout", def.Tuning.WriteTimeout, "time for one write to a connection")
	fs.Var(&stun, "stun", "STUN server URL handed to clients (repeatable, comma-separated)")
	fs.Var(&turn, "turn", "TURN server URL handed to clients with -turn-user and -turn-credential, or minted ones (repeatable)")
	fs.IntVar(&cfg.Tuning.JoinRate, "join-rate", def.Tuning.JoinRate, "joins per second per client address")
	fs.IntVar(&cfg.Tuning.JoinBurst, "join-burst", def.Tuning.JoinBurst, "join burst per client address")
	fs.IntVar(&cfg.Tuning.RoomJoinRate, "room-join-rate", def.Tuning.RoomJoinRate, "joins per second into one named room")
	fs.IntVar(&cfg.Tuning.RoomJoinBurst, "room-join-burst", def.Tuning.RoomJoinBurst, "join burst into one named room")
	fs.Var(&proxies, "trusted-proxy", "reverse proxy address or CIDR whose Forwarded/X-Forwarded-For is believed (repeatable)")
	fs.Var(&tokenRooms, "token-room", "with $ROLLNET_SIGNAL_SECRET: only the rooms whose names start with this `PREFIX` require a join token, the others stay open (repeatable; none: every room requires one)")
	fs.Var(&origins, "origin", "browser origin pattern allowed besides the server's own host (repeatable)")
	fs.Usage = func() {} // -h prints the usage below, to stdout
	usage := func() {
		fs.SetOutput(stdout)
		fmt.Fprintln(stdout, "usage: rollnet-signal [flags]\n\n"+
			"The join-token secret is read from $ROLLNET_SIGNAL_SECRET (unset: rooms are open).\n"+
			"With $ROLLNET_TURN_SECRET (coturn's static-auth-secret), -turn servers given without\n"+
			"-turn-user get short-lived credentials minted per client.\n\nFlags:")
		natsauth.PrintDefaults(fs, stdout, "The NATS connection of -nats (credentials and TLS; see package fleet's trust model):")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage()
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	if (*tlsCert == "") != (*tlsKey == "") {
		return usageError{errors.New("-tls-cert and -tls-key go together")}
	}
	cfg.TrustedProxies = proxies
	cfg.TokenRooms = tokenRooms
	if s := getenv("ROLLNET_SIGNAL_SECRET"); s != "" {
		cfg.TokenSecret = []byte(s)
	}
	if s := getenv("ROLLNET_TURN_SECRET"); s != "" {
		cfg.TURNSecret = []byte(s)
	}
	if len(tokenRooms) > 0 && len(cfg.TokenSecret) == 0 {
		return usageError{errors.New("-token-room needs $ROLLNET_SIGNAL_SECRET (the secret that signs the rooms' tokens)")}
	}
	if *mint != "" {
		if len(cfg.TokenSecret) == 0 {
			return usageError{errors.New("-mint-token needs $ROLLNET_SIGNAL_SECRET")}
		}
		fmt.Fprintln(stdout, signaling.Token(cfg.TokenSecret, *mint, time.Now().Add(*ttl)))
		return nil
	}
	if len(stun) > 0 {
		cfg.ICEServers = append(cfg.ICEServers, client.ICEServer{URLs: stun})
	}
	if len(turn) > 0 {
		cfg.ICEServers = append(cfg.ICEServers, client.ICEServer{URLs: turn, Username: *turnUser, Credential: *turnCred})
	}
	cfg.OriginPatterns = origins

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return usageError{fmt.Errorf("-log-level: %w", err)}
	}
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(stderr, opts)
	if *logJSON {
		h = slog.NewJSONHandler(stderr, opts)
	}
	log := slog.New(h)
	cfg.Logger = log
	rl, err := relay.start(&cfg, log)
	if err != nil {
		return err
	}
	defer closeRelay(rl, log)

	if *natsURL == "" && natsAuth != (natsauth.Flags{}) {
		return usageError{errors.New("the -nats-* connection flags need -nats")}
	}
	if *natsURL != "" {
		if err := natsAuth.Validate(*natsURL); err != nil {
			return usageError{fmt.Errorf("-nats: %w", err)}
		}
		nc, err := natsAuth.Connect(*natsURL, "rollnet-signal")
		if err != nil {
			return fmt.Errorf("-nats %s: %w", *natsURL, err)
		}
		if natsAuth.Anonymous() {
			log.Warn("NATS without credentials: whoever reaches that NATS can write the rooms and the fleet's bucket (see package fleet's trust model; -nats-creds, -nats-nkey or -nats-user)")
		}
		defer nc.Close()
		cfg.NATS = nc
		cfg.Cluster.Name = *natsName
	}
	var placer *fleet.Placer
	if *fleetSecret != "" {
		if cfg.NATS == nil {
			return usageError{errors.New("-fleet-secret-file needs -nats")}
		}
		policy, err := fleet.ParsePolicy(*fleetPolicy)
		if err != nil {
			return usageError{err}
		}
		secret, err := os.ReadFile(*fleetSecret)
		if err != nil {
			return usageError{fmt.Errorf("-fleet-secret-file: %w", err)}
		}
		placer, err = fleet.NewPlacer(cfg.NATS, fleet.PlacerConfig{Config: fleet.Config{Name: *natsName, Tuning: fleet.Tuning{DeadAfter: *fleetDead}},
			Policy: policy, Secret: []byte(strings.TrimSpace(string(secret))), AddrRate: *fleetRate, AddrBurst: *fleetBurst, TrustedProxies: cfg.TrustedProxies, Logger: log})
		if errors.Is(err, rollnet.ErrConfig) {
			return usageError{err}
		}
		if err != nil {
			return err
		}
		defer placer.Close()
	}
	srv, err := signaling.NewServer(cfg)
	if errors.Is(err, client.ErrClusterUnavailable) {
		return err
	}
	if err != nil {
		return usageError{err} // a flag's value
	}
	if *metrics != "" {
		stopMetrics, err := serveMetrics(*metrics, srv, rl, placer, log)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}
	if rl != nil {
		srv.Handle("/turn", relayStats(rl))
	}
	if placer != nil {
		srv.Handle(fleet.PlacePath, placer)
		srv.Handle(fleet.ViewPath, placer)
		log.Info("fleet placement", "place", fleet.PlacePath, "view", fleet.ViewPath, "policy", *fleetPolicy) // as parsed: fill or spread
	}
	if *tlsCert != "" { // load now, to fail before listening
		if _, err := tls.LoadX509KeyPair(*tlsCert, *tlsKey); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	log.Info("rollnet-signal listening", "addr", ln.Addr().String(), "protocol", wire.ProtocolVersion,
		"nats", *natsURL, "nats_auth", natsAuth.Auth(), "tokens", len(cfg.TokenSecret) > 0, "token_rooms", cfg.TokenRooms, "ice_servers", len(cfg.ICEServers), "tls", *tlsCert != "",
		"trusted_proxies", len(cfg.TrustedProxies))
	if ta, ok := ln.Addr().(*net.TCPAddr); ok && ta.IP.IsLoopback() && len(cfg.TrustedProxies) == 0 {
		log.Warn("rollnet-signal listens on loopback without -trusted-proxy: behind a reverse proxy on this machine "+
			"every client is the proxy's loopback address, which the per-address caps exempt, so they are all off; "+
			"name the proxy (-trusted-proxy 127.0.0.1)", "addr", ln.Addr().String())
	}
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() {
		if *tlsCert != "" {
			errc <- srv.ServeTLS(ln, *tlsCert, *tlsKey)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		_ = srv.Close()
		return err
	case <-ctx.Done():
	}
	log.Info("rollnet-signal shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), *shutdown)
	defer cancel()
	err = srv.Shutdown(sctx) // stops accepting, then closes every WebSocket
	<-errc
	return err
}
