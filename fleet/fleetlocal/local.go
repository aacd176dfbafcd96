//go:build !js

// Package fleetlocal runs a fleet of authoritative hosts inside one
// process, for development and measurement: an embedded NATS server with
// JetStream (run with the users and permissions of fleet/nats-fleet.conf,
// users.go, each member connecting with its role's credentials), signaling instances that place matches (package fleet's
// Placer) and hosts of the example game "court" (rollnet-host -fleet, as
// package authority/dedicated runs it), all on loopback; and Play, a bot of court that asks the
// fleet for a match and plays it. The command rollnet-fleet and the bench
// report's fleet figures are built on it.
package fleetlocal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/authority/dedicated"
	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/internal/court"
	"github.com/rollnet/rollnet/internal/localsignal"
	"github.com/rollnet/rollnet/internal/natsauth"
	"github.com/rollnet/rollnet/internal/netplayhatch"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/signaling"
)

// courtGame is the game the fleet's hosts run, as rollnet-host runs it.
var courtGame = []dedicated.Game{
	dedicated.Sim[court.State, int8]{Name: "court", Players: court.Players, Simulate: court.Simulate, Init: court.Init},
}

// Options says what Start starts. The zero value of each field means its
// default.
type Options struct {
	Hosts, Signals int          // default 3 and 2
	Capacity       int          // matches per host, default 4
	Policy         fleet.Policy // every instance's
	// Addr is the first instance's address; the next ones take the next
	// ports (default 127.0.0.1:0, any free ports).
	Addr     string
	NATSPort int    // default any free port
	Version  string // the hosts' game version, default "1"
	Drain    time.Duration
	// Linger is how long a match whose clients left waits for one to come
	// back before it frees its slot (default 1 s).
	Linger    time.Duration
	LogLevel  slog.Level
	LogOutput io.Writer // nil: discarded
}

// Host is one host as started.
type Host struct {
	ID, QUIC string
}

// Fleet is a running local fleet.
type Fleet struct {
	// NATS is the embedded server's URL. It runs with the users and
	// permissions of fleet/nats-fleet.conf (users.go): each host connects
	// as host-<id>, the signaling instances as placer; PasswordFiles
	// holds each user's password file (operator's too: rollnet-fleet
	// -drain ID -nats NATS -nats-user operator -nats-password-file FILE).
	NATS          string
	PasswordFiles map[string]string
	Signals       []string // ws://HOST:PORT of each instance
	Hosts         []Host

	dir    string
	ns     *natsserver.Server
	stops  []func()
	cancel context.CancelFunc
	wg     sync.WaitGroup
	errc   chan error
}

// Start starts a fleet, and returns once every instance sees every host
// live (a placement can be asked at once); Close stops it.
func Start(o Options) (*Fleet, error) {
	if o.Hosts == 0 {
		o.Hosts = 3
	}
	if o.Signals == 0 {
		o.Signals = 2
	}
	if o.Capacity == 0 {
		o.Capacity = 4
	}
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.Version == "" {
		o.Version = "1"
	}
	if o.Drain == 0 {
		o.Drain = 5 * time.Second
	}
	if o.Linger == 0 {
		o.Linger = time.Second
	}
	if o.LogOutput == nil {
		o.LogOutput = io.Discard
	}
	if o.Hosts < 0 || o.Signals < 0 || o.Capacity < 0 || o.Drain < 0 {
		return nil, fmt.Errorf("%w: negative hosts, signals, capacity or drain", rollnet.ErrConfig)
	}
	host, port, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return nil, fmt.Errorf("%w: Addr: %v", rollnet.ErrConfig, err)
	}
	first, _ := strconv.Atoi(port)
	log := slog.New(slog.NewTextHandler(o.LogOutput, &slog.HandlerOptions{Level: o.LogLevel}))
	dir, err := os.MkdirTemp("", "rollnet-fleet-")
	if err != nil {
		return nil, err
	}
	f := &Fleet{dir: dir, errc: make(chan error, o.Hosts), PasswordFiles: map[string]string{}}
	fail := func(err error) (*Fleet, error) {
		f.Close()
		return nil, err
	}
	natsPort := o.NATSPort
	if natsPort == 0 {
		natsPort = -1
	}
	var ids []string
	for i := range o.Hosts {
		ids = append(ids, fmt.Sprintf("h%d", i+1))
	}
	passwords := map[string]string{}
	users := users(ids, func(user string) string {
		pw := make([]byte, 16)
		_, _ = rand.Read(pw)
		passwords[user] = hex.EncodeToString(pw)
		return passwords[user]
	})
	for user, pw := range passwords {
		f.PasswordFiles[user] = filepath.Join(dir, user+".pw")
		if err := os.WriteFile(f.PasswordFiles[user], []byte(pw), 0o600); err != nil {
			return fail(err)
		}
	}
	f.ns, err = natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: natsPort, JetStream: true,
		StoreDir: filepath.Join(dir, "nats"), NoLog: true, NoSigs: true, Users: users})
	if err != nil {
		return fail(err)
	}
	f.ns.Start()
	if !f.ns.ReadyForConnections(10 * time.Second) {
		return fail(errors.New("fleetlocal: the embedded NATS server did not start within 10 s"))
	}
	f.NATS = f.ns.ClientURL()
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	secretHex := hex.EncodeToString(secret)
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, []byte(secretHex), 0o600); err != nil {
		return fail(err)
	}
	for i := range o.Signals {
		p := 0
		if first != 0 {
			p = first + i
		}
		url, stop, err := startSignal(net.JoinHostPort(host, strconv.Itoa(p)), f.NATS, f.auth("placer"), o.Policy, []byte(secretHex), log)
		if err != nil {
			return fail(err)
		}
		f.stops = append(f.stops, stop)
		f.Signals = append(f.Signals, url)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	for _, id := range ids {
		args := []string{"-fleet", f.NATS, "-nats-user", "host-" + id, "-nats-password-file", f.PasswordFiles["host-"+id], "-fleet-id", id, "-quic", "127.0.0.1:0", "-webrtc=false",
			"-token-secret-file", secretFile, "-capacity", strconv.Itoa(o.Capacity), "-version", o.Version,
			"-drain-deadline", o.Drain.String(), "-match-linger", o.Linger.String(), "-quic-max-conns-per-address", "256",
			"-log-level", o.LogLevel.String(), "-stats-every", "0"}
		readyc := make(chan string, 1)
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			if err := dedicated.Run(ctx, "rollnet-host "+id, courtGame, args, o.LogOutput, func(addr string) { readyc <- addr }); err != nil {
				f.errc <- fmt.Errorf("host %s: %w", id, err)
			}
		}()
		select {
		case addr := <-readyc:
			f.Hosts = append(f.Hosts, Host{ID: id, QUIC: addr})
		case err := <-f.errc:
			return fail(err)
		case <-time.After(10 * time.Second):
			return fail(fmt.Errorf("fleetlocal: host %s did not start within 10 s", id))
		}
	}
	// Placing can start once every instance's mirror has every host: a
	// request before would find no host (its record not watched yet).
	deadline := time.Now().Add(10 * time.Second)
	for _, signal := range f.Signals {
		for live(signal) < o.Hosts {
			if time.Now().After(deadline) {
				return fail(fmt.Errorf("fleetlocal: an instance sees %d of the %d hosts live after 10 s", live(signal), o.Hosts))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return f, nil
}

// live counts the hosts the instance at signal (ws://HOST:PORT) sees live,
// from its /fleet view (0 if it cannot be read).
func live(signal string) int {
	resp, err := http.Get("http" + strings.TrimPrefix(signal, "ws") + fleet.ViewPath)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var v struct {
		Hosts []struct {
			State string `json:"state"`
		} `json:"hosts"`
	}
	if json.NewDecoder(resp.Body).Decode(&v) != nil {
		return 0
	}
	n := 0
	for _, h := range v.Hosts {
		if h.State == "live" {
			n++
		}
	}
	return n
}

// Err is where a host's failure arrives.
func (f *Fleet) Err() <-chan error { return f.errc }

// Close stops the hosts (each drains for Options.Drain at most), the
// instances and NATS.
func (f *Fleet) Close() {
	if f.cancel != nil {
		f.cancel()
	}
	f.wg.Wait()
	for i := len(f.stops) - 1; i >= 0; i-- {
		f.stops[i]()
	}
	if f.ns != nil {
		f.ns.Shutdown()
		f.ns.WaitForShutdown()
	}
	_ = os.RemoveAll(f.dir)
}

// auth is user's credentials on the embedded server.
func (f *Fleet) auth(user string) natsauth.Flags {
	return natsauth.Flags{User: user, PasswordFile: f.PasswordFiles[user]}
}

// Connect connects to the embedded server as user ("placer", "operator",
// "host-<id>"), with that user's permissions.
func (f *Fleet) Connect(user string) (*nats.Conn, error) {
	if f.PasswordFiles[user] == "" {
		return nil, fmt.Errorf("%w: no NATS user %q in this fleet", rollnet.ErrConfig, user)
	}
	return f.auth(user).Connect(f.NATS, "fleetlocal "+user)
}

// startSignal serves one signaling instance with a placer on addr.
func startSignal(addr, natsURL string, auth natsauth.Flags, policy fleet.Policy, secret []byte, log *slog.Logger) (string, func(), error) {
	nc, err := auth.Connect(natsURL, "fleetlocal signal")
	if err != nil {
		return "", nil, err
	}
	pl, err := fleet.NewPlacer(nc, fleet.PlacerConfig{Policy: policy, Secret: secret, AddrRate: 10000, AddrBurst: 10000, Logger: log})
	if err != nil {
		nc.Close()
		return "", nil, err
	}
	srv, err := signaling.NewServer(signaling.ServerConfig{NATS: nc, Logger: log})
	if err != nil {
		_ = pl.Close()
		nc.Close()
		return "", nil, err
	}
	srv.Handle(fleet.PlacePath, pl)
	srv.Handle(fleet.ViewPath, pl)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		_ = srv.Close()
		_ = pl.Close()
		nc.Close()
		return "", nil, err
	}
	s := localsignal.Serve(srv, ln, srv)
	return s.URL(), func() { s.Close(); _ = pl.Close(); nc.Close() }, nil
}

// Outcome is what one bot saw.
type Outcome struct {
	Room, Host string
	Joined     bool          // it joined a match already placed
	First      time.Duration // from the request to the first host state
	Played     bool          // it applied its states
	Told       bool          // its Status said the host is gone (or went before the first state)
	ToldAt     time.Time
	// Stall is the longest the bot went between two of its ticks: a
	// process starved that long on a loaded machine hears nothing from
	// its host meanwhile, and past the link's disconnect timeout (5 s)
	// it is told its host is gone though the host is there.
	Stall   time.Duration
	Refused error // the placement was refused, or the placed host did not answer: ask again
	Err     error
}

// Play is a bot of court: it asks the fleet behind signal for a match in
// room and plays until it has applied states host states (for ever, for
// states < 0, until its host is gone or ctx ends). Each tick (60 a
// second) it moves its paddle, up for a second, then down.
func Play(ctx context.Context, signal, room, version string, states int, connect time.Duration) Outcome {
	o := Outcome{Room: room}
	start := time.Now()
	m, err := netplay.Connect[court.State, int8](netplay.Config{Signal: signal, Players: court.Players, Timeout: connect, Name: "bot",
		Fleet: &fleet.Request{Game: "court", Room: room, Version: version}}, court.Simulate)
	if err != nil {
		o.Err = err
		return o
	}
	defer m.Close()
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	var st netplay.Status
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			o.Err = fmt.Errorf("bot in %s on %s: %w after %v (first state after %v), last status %v", room, o.Host, ctx.Err(), time.Since(start), o.First, st)
			return o
		case <-tick.C:
		}
		now := time.Now()
		o.Stall, last = max(o.Stall, now.Sub(last)), now
		in := int8(1)
		if (st.Frame/60)%2 == 1 {
			in = -1
		}
		st, err = m.AdvanceFrame(in)
		if o.Host == "" {
			if p := m.Stats().Placement; p.Host != "" {
				o.Host, o.Joined = p.Host, p.Joined
			}
		}
		if err != nil {
			switch {
			case errors.Is(err, fleet.ErrUnavailable) || errors.Is(err, fleet.ErrNoHost) || errors.Is(err, netplay.ErrHostUnreachable):
				o.Refused = err
			case errors.Is(err, netplay.ErrTimeout) && o.Host != "":
				o.Told, o.ToldAt = true, time.Now() // its host went before the first state
			default:
				o.Err = fmt.Errorf("bot in %s on %s: %w", room, o.Host, err)
			}
			return o
		}
		switch {
		case st.Phase == netplay.Ended:
			if st.Ended == netplay.EndHostGone {
				o.Told, o.ToldAt = true, time.Now()
			} else {
				o.Err = fmt.Errorf("bot in %s on %s: ended: %v", room, o.Host, st.Ended)
			}
			return o
		case st.Phase == netplay.Running && o.First == 0:
			o.First = time.Since(start)
		case o.First > 0 && states >= 0 && netplayhatch.Of[*authority.Client[court.State, int8]](m).Stats().StatesApplied >= uint64(states):
			o.Played = true
			return o
		}
	}
}
