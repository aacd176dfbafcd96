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
// SIGINT or SIGTERM stops the fleet (each host drains for -drain-deadline).
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/rollnet/rollnet/authority/cmd/hostcmd"
	"github.com/rollnet/rollnet/authority/cmd/hostcmd/court"
	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/signaling"
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
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o options
	fs := flag.NewFlagSet("rollnet-fleet", flag.ContinueOnError)
	fs.SetOutput(stderr)
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
	fs.StringVar(&o.signal, "signal", "ws://127.0.0.1:8080", "with -play: the signaling instance")
	fs.StringVar(&o.room, "room", "r1", "with -play: the room (the players of a match agree on it)")
	fs.IntVar(&o.frames, "frames", 300, "with -play: frames to play after the first state")
	fs.DurationVar(&o.timeout, "timeout", 20*time.Second, "with -play: bound on connecting")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
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
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	return local(ctx, o, policy, log, stdout)
}

// local runs the fleet until ctx ends.
func local(ctx context.Context, o options, policy fleet.Policy, log *slog.Logger, stdout io.Writer) error {
	dir, err := os.MkdirTemp("", "rollnet-fleet-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: o.natsPort, JetStream: true,
		StoreDir: filepath.Join(dir, "nats"), NoLog: true, NoSigs: true})
	if o.natsPort == 0 {
		ns, err = natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
			StoreDir: filepath.Join(dir, "nats"), NoLog: true, NoSigs: true})
	}
	if err != nil {
		return err
	}
	ns.Start()
	defer ns.WaitForShutdown()
	defer ns.Shutdown()
	if !ns.ReadyForConnections(10 * time.Second) {
		return errors.New("the embedded NATS server did not start within 10 s")
	}
	natsURL := ns.ClientURL()
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	secretHex := hex.EncodeToString(secret)
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, []byte(secretHex), 0o600); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "nats    ", natsURL, "(embedded, JetStream)")

	host, port, err := net.SplitHostPort(o.addr)
	if err != nil {
		return fmt.Errorf("%w: -addr: %v", errUsage, err)
	}
	first, _ := strconv.Atoi(port)
	for i := range o.signals {
		p := 0
		if first != 0 {
			p = first + i
		}
		stop, url, err := startSignal(net.JoinHostPort(host, strconv.Itoa(p)), natsURL, policy, []byte(secretHex), log)
		if err != nil {
			return err
		}
		defer stop()
		fmt.Fprintln(stdout, "signal  ", url, "place: POST", "http"+url[2:]+fleet.PlacePath, " view: GET", "http"+url[2:]+fleet.ViewPath)
	}
	var wg sync.WaitGroup
	hctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); wg.Wait() }()
	errc := make(chan error, o.hosts)
	for i := range o.hosts {
		id := fmt.Sprintf("h%d", i+1)
		args := []string{"-fleet", natsURL, "-fleet-id", id, "-quic", "127.0.0.1:0", "-webrtc=false",
			"-token-secret-file", secretFile, "-capacity", strconv.Itoa(o.capacity), "-version", o.version,
			"-drain-deadline", o.drain.String(), "-metrics", "127.0.0.1:0", "-quic-max-conns-per-address", "64",
			"-log-level", o.logLevel, "-stats-every", "0"}
		readyc := make(chan string, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := hostcmd.Run(hctx, "rollnet-host "+id, args, logWriter{log}, func(addr string) { readyc <- addr }); err != nil {
				errc <- fmt.Errorf("host %s: %w", id, err)
			}
		}()
		select {
		case addr := <-readyc:
			fmt.Fprintln(stdout, "host    ", id, "quic", addr, "game court, capacity", o.capacity)
		case err := <-errc:
			return err
		case <-time.After(10 * time.Second):
			return fmt.Errorf("host %s did not start within 10 s", id)
		}
	}
	fmt.Fprintf(stdout, "ready: go run ./fleet/cmd/rollnet-fleet -play -signal ws://%s -room r1   (two of them share a match)\n", o.addr)
	select {
	case <-ctx.Done():
		fmt.Fprintln(stdout, "stopping: the hosts drain")
		return nil
	case err := <-errc:
		return err
	}
}

// logWriter hands a host's text log to log's handler as it is (the host
// makes its own slog.Logger from the writer).
type logWriter struct{ log *slog.Logger }

func (w logWriter) Write(b []byte) (int, error) {
	if w.log.Enabled(context.Background(), slog.LevelWarn) {
		return os.Stderr.Write(b)
	}
	return len(b), nil
}

// startSignal serves one signaling instance with a placer on addr.
func startSignal(addr, natsURL string, policy fleet.Policy, secret []byte, log *slog.Logger) (func(), string, error) {
	nc, err := nats.Connect(natsURL, nats.MaxReconnects(-1), nats.ReconnectWait(250*time.Millisecond))
	if err != nil {
		return nil, "", err
	}
	pl, err := fleet.NewPlacer(nc, fleet.PlacerConfig{Policy: policy, Secret: secret, AddrRate: 1000, AddrBurst: 1000, Logger: log})
	if err != nil {
		nc.Close()
		return nil, "", err
	}
	srv, err := signaling.NewServer(signaling.ServerConfig{NATS: nc, Logger: log})
	if err != nil {
		_ = pl.Close()
		nc.Close()
		return nil, "", err
	}
	srv.Handle(fleet.PlacePath, pl)
	srv.Handle(fleet.ViewPath, pl)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		_ = srv.Close()
		_ = pl.Close()
		nc.Close()
		return nil, "", err
	}
	s := hostcmd.ServeSignaling(srv, ln, srv)
	return func() { s.Close(); _ = pl.Close(); nc.Close() }, s.URL(), nil
}

// play is a bot of court: placed, connected, -frames played.
func play(ctx context.Context, o options, stdout io.Writer) error {
	start := time.Now()
	m, err := netplay.ConnectFleet[court.State, int8](netplay.Config{Signal: o.signal, Players: court.Players, Timeout: o.timeout, Name: "bot"},
		fleet.Request{Game: "court", Room: o.room, Version: o.version}, court.Simulate)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	defer m.Close()
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	first, frame := 0, 0
	placed, running := false, false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		st, err := m.AdvanceFrame(input(frame))
		if err != nil {
			return err
		}
		frame = int(st.Frame)
		if p, ok := m.Placement(); ok && !placed {
			placed = true
			fmt.Fprintf(stdout, "placed on %s at %s (room %s, joined an existing match: %v) after %v\n", p.Host, p.QUIC, p.Room, p.Joined, time.Since(start).Round(time.Millisecond))
		}
		switch {
		case st.Phase == netplay.Ended:
			fmt.Fprintf(stdout, "match ended at frame %d: %v (ask again: the room is placed anew on a live host)\n", st.Frame, st.Ended)
			return nil
		case st.Interrupted != "":
			fmt.Fprintf(stdout, "host %s silent: gone in %v\n", st.Interrupted, st.Timeout.Round(100*time.Millisecond))
		case st.Phase == netplay.Running && !running:
			running, first = true, frame
			fmt.Fprintf(stdout, "first state %v after the request (frame %d)\n", time.Since(start).Round(time.Millisecond), st.Frame)
		case running && frame-first >= o.frames:
			fmt.Fprintf(stdout, "played %d frames\n", o.frames)
			return nil
		}
	}
}

// input is the bot's paddle: up for a second, then down.
func input(frame int) int8 {
	if (frame/60)%2 == 0 {
		return 1
	}
	return -1
}
