//go:build !js

// Command rollnet-fleet starts a fleet of authoritative hosts on this
// machine in one process, for development: an embedded NATS server with
// JetStream, -signals signaling instances placing matches (rollnet-signal
// -fleet-secret-file does the same in production) and -hosts hosts of
// the example game "court" (rollnet-host -fleet), all on loopback.
//
//	go run ./fleet/cmd/rollnet-fleet                       # 2 instances on :8080, :8081; 3 hosts
//	go run ./fleet/cmd/rollnet-fleet -hosts 5 -capacity 2 -policy spread
//
// With -play it is a client instead: a bot that asks the fleet for a
// match of court in -room, plays -frames frames and says where it was
// placed and how long the request took to the first state.
//
//	go run ./fleet/cmd/rollnet-fleet -play -signal ws://127.0.0.1:8080 -room r1
//
// With -drain it is an operator instead: it writes host ID's drain order
// in the fleet's bucket on -nats (the key drain.<ID>, which only an
// operator's NATS credentials may write: see package fleet's trust
// model), and the host drains at its next beat.
//
//	go run ./fleet/cmd/rollnet-fleet -drain h1 -nats tls://NATS:4222 -nats-creds operator.creds
//
// SIGINT or SIGTERM stops the fleet (each host drains for -drain-deadline).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/fleet/fleetlocal"
	"github.com/rollnet/rollnet/internal/natsauth"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, "rollnet-fleet:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "rollnet-fleet:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

type options struct {
	hosts, signals, capacity int
	policy, addr, version    string
	natsPort                 int
	drain                    time.Duration
	logLevel                 string

	play         bool
	signal, room string
	frames       int
	timeout      time.Duration

	drainID, natsURL, fleetName string
	auth                        natsauth.Flags
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o options
	fs := flag.NewFlagSet("rollnet-fleet", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // a flag error is one line, from main; -h prints usage to stdout
	fs.IntVar(&o.hosts, "hosts", 3, "hosts to start")
	fs.IntVar(&o.signals, "signals", 2, "signaling instances to start, on -addr's port and the next ones")
	fs.IntVar(&o.capacity, "capacity", 4, "matches each host runs at once")
	fs.StringVar(&o.policy, "policy", "fill", "placement policy: fill or spread")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "the first signaling instance's `ADDR`")
	fs.IntVar(&o.natsPort, "nats-port", 0, "the embedded NATS server's port (0: any free one)")
	fs.StringVar(&o.version, "version", "1", "the game version the hosts run (with -play: the client's)")
	fs.DurationVar(&o.drain, "drain-deadline", 5*time.Second, "how long a host drains at shutdown")
	fs.StringVar(&o.logLevel, "log-level", "warn", "the hosts' and instances' log level")
	fs.BoolVar(&o.play, "play", false, "be a client: ask -signal for a match in -room and play it")
	fs.StringVar(&o.signal, "signal", "ws://127.0.0.1:8080", "with -play: the signaling `URL` (ws://HOST:PORT or http://)")
	fs.StringVar(&o.room, "room", "r1", "with -play: the room (the players of a match agree on it)")
	fs.IntVar(&o.frames, "frames", 300, "with -play: host states to apply (-1: play until the host is gone)")
	fs.DurationVar(&o.timeout, "timeout", 20*time.Second, "with -play: bound on connecting")
	fs.StringVar(&o.drainID, "drain", "", "be an operator: order host `ID` of the fleet on -nats to drain, and exit")
	fs.StringVar(&o.natsURL, "nats", "", "with -drain: the fleet's NATS `URL` (nats://HOST:4222 or tls://)")
	fs.StringVar(&o.fleetName, "fleet-name", "rollnet", "with -drain: the fleet's `NAME` (its bucket is NAME-fleet)")
	o.auth.Register(fs)
	fs.Usage = func() {} // -h prints usage below, to stdout
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(fs, stdout)
			return err
		}
		return fmt.Errorf("%w: %v (rollnet-fleet -h lists the flags)", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if o.drainID != "" || o.natsURL != "" || o.auth != (natsauth.Flags{}) {
		if o.drainID == "" || o.natsURL == "" {
			return fmt.Errorf("%w: -drain ID and -nats URL go together (the -nats-* flags with them)", errUsage)
		}
		if err := o.auth.Validate(o.natsURL); err != nil {
			return fmt.Errorf("%w: -nats: %v", errUsage, err)
		}
		return drainHost(ctx, o, stdout)
	}
	if o.play {
		return play(ctx, o, stdout)
	}
	if o.hosts < 1 || o.signals < 1 || o.capacity < 1 {
		return fmt.Errorf("%w: -hosts, -signals and -capacity must be >= 1", errUsage)
	}
	policy, err := fleet.ParsePolicy(o.policy)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return fmt.Errorf("%w: -log-level: %v", errUsage, err)
	}
	return local(ctx, o, policy, level, stdout, stderr)
}

// local runs the fleet until ctx ends.
func local(ctx context.Context, o options, policy fleet.Policy, level slog.Level, stdout, stderr io.Writer) error {
	f, err := fleetlocal.Start(fleetlocal.Options{Hosts: o.hosts, Signals: o.signals, Capacity: o.capacity, Policy: policy,
		Addr: o.addr, NATSPort: o.natsPort, Version: o.version, Drain: o.drain, LogLevel: level, LogOutput: stderr})
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintln(stdout, "nats    ", f.NATS, "(embedded, JetStream, the permissions of fleet/nats-fleet.conf: hosts host-<id>, instances placer)")
	for _, s := range f.Signals {
		http := "http" + strings.TrimPrefix(s, "ws")
		fmt.Fprintln(stdout, "signal  ", s, "  place: POST", http+fleet.PlacePath, "  view: GET", http+fleet.ViewPath)
	}
	for _, h := range f.Hosts {
		fmt.Fprintln(stdout, "host    ", h.ID, "quic", h.QUIC, "court, capacity", o.capacity)
	}
	fmt.Fprintf(stdout, "ready: go run ./fleet/cmd/rollnet-fleet -play -signal %s -room r1   (two of them share a match)\n", f.Signals[0])
	fmt.Fprintf(stdout, "drain: go run ./fleet/cmd/rollnet-fleet -drain %s -nats %s -nats-user operator -nats-password-file %s\n", f.Hosts[0].ID, f.NATS, f.PasswordFiles["operator"])
	select {
	case <-ctx.Done():
		fmt.Fprintln(stdout, "stopping: the hosts drain")
		return nil
	case err := <-f.Err():
		return err
	}
}

// drainHost writes host o.drainID's drain order.
func drainHost(ctx context.Context, o options, stdout io.Writer) error {
	nc, err := o.auth.Connect(o.natsURL, "rollnet-fleet -drain")
	if err != nil {
		return fmt.Errorf("-nats %s: %w", o.natsURL, err)
	}
	defer nc.Close()
	if err := fleet.Drain(ctx, nc, fleet.Config{Name: o.fleetName}, o.drainID); err != nil {
		if errors.Is(err, rollnet.ErrConfig) {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		return fmt.Errorf("%w (only an operator's credentials may write drain.%s; see package fleet's trust model)", err, o.drainID)
	}
	fmt.Fprintf(stdout, "ordered host %s of fleet %s to drain: it takes no new match from its next beat, and exits once its matches end or its -drain-deadline passes\n", o.drainID, o.fleetName)
	return nil
}

// play is a bot of court: placed, connected, -frames states played.
func play(ctx context.Context, o options, stdout io.Writer) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	res := fleetlocal.Play(ctx, o.signal, o.room, o.version, o.frames, o.timeout)
	switch {
	case res.Err != nil && ctx.Err() != nil:
		return nil // interrupted
	case errors.Is(res.Err, fleet.ErrBadRequest):
		return fmt.Errorf("%w: %v", errUsage, res.Err)
	case res.Err != nil:
		return res.Err
	case res.Refused != nil:
		return fmt.Errorf("placement refused: %w", res.Refused)
	}
	fmt.Fprintf(stdout, "placed on %s (room %s, joined a match already placed: %v); first state %v after the request\n",
		res.Host, res.Room, res.Joined, res.First.Round(time.Millisecond))
	if res.Told {
		fmt.Fprintf(stdout, "host %s is gone: the match ended (ask again: the room is placed anew on a live host)\n", res.Host)
		return nil
	}
	fmt.Fprintf(stdout, "played %d host states\n", o.frames)
	return nil
}

// usageText is what -h prints before the flags.
const usageText = `usage: rollnet-fleet [flags]             run a local fleet until SIGINT or SIGTERM
       rollnet-fleet -play [flags]       be a bot that asks a fleet for a match and plays it
       rollnet-fleet -drain ID -nats URL [-nats-* flags]   order a fleet's host to drain

A fleet of authoritative hosts on this machine, in one process, for development: an
embedded NATS server with JetStream, -signals signaling instances that place matches
(rollnet-signal -fleet-secret-file in production) and -hosts hosts of the example game
"court" (rollnet-host -fleet), all on loopback. It prints each instance's placement and
view URLs, then runs until SIGINT or SIGTERM, when each host drains for -drain-deadline.

  rollnet-fleet                                    2 instances on :8080, :8081; 3 hosts
  rollnet-fleet -hosts 5 -capacity 2 -policy spread
  rollnet-fleet -play -signal ws://127.0.0.1:8080 -room r1
  curl -s http://127.0.0.1:8080/fleet              the hosts, their matches, the placements
  rollnet-fleet -drain h1 -nats tls://NATS:4222 -nats-creds operator.creds

Exit status: 0 when stopped by a signal or the bot played its frames, 1 on a failure,
2 on a usage error.
`

// flagGroups says under which heading -h lists each flag.
var flagGroups = []struct {
	heading string
	names   []string
}{
	{"The local fleet:", []string{"hosts", "signals", "capacity", "policy", "addr", "nats-port", "version", "drain-deadline", "log-level"}},
	{"With -play (a bot of court; -version is the client's):", []string{"play", "signal", "room", "frames", "timeout"}},
	{"With -drain (an operator's drain order, over the fleet's NATS; see package fleet's trust model):", []string{"drain", "nats", "fleet-name",
		"nats-creds", "nats-nkey", "nats-user", "nats-password-file", "nats-ca", "nats-cert", "nats-key"}},
}

// usage prints usageText and fs's flags by group.
func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, usageText)
	listed := map[string]bool{}
	for _, g := range flagGroups {
		sub := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
		for _, name := range g.names {
			if f := fs.Lookup(name); f != nil {
				sub.Var(f.Value, f.Name, f.Usage)
				sub.Lookup(f.Name).DefValue = f.DefValue
				listed[name] = true
			}
		}
		fmt.Fprintf(w, "\n%s\n", g.heading)
		sub.SetOutput(w)
		sub.PrintDefaults()
	}
	fs.VisitAll(func(f *flag.Flag) {
		if !listed[f.Name] {
			panic("rollnet-fleet: flag -" + f.Name + " is in no usage group")
		}
	})
}
