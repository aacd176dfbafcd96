package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority/dedicated"
	"github.com/rollnet/rollnet/internal/signalurl"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// options are the command line.
type options struct {
	signal   string // signaling server URL; empty: start one and a child opponent
	room     string
	bot      bool
	frames   int
	delay    int
	impair   impairment
	spectate bool
	fps      int
	headless bool // forced by -headless or by not having a terminal
	offline  bool // no network: against a bot in this process
	relay    bool // -relay: WebRTC through the TURN relay only
	child    bool // this process is the opponent started by a parent
	side     int  // -1: decided by join order
	timeout  time.Duration
	seed     uint32
	inject   int    // -inject-desync: corrupt the local state at this frame (tests)
	name     string // the player's name, shown to the opponent and spectators
	record   string // -record: the file this side records its match into (record.go)
	replay   string // -replay: the recording to play back instead of a match
	mode     string // modeP2P or modeAuthority
	grace    time.Duration
	absence  rollnet.Absence // -absence: what the match does while the opponent is away
	web      string          // -web: serve the browser pong and a signaling server here (web.go)
	rejoin   string          // -rejoin: the file this player keeps its rejoin token in (rejoin.go)
	connect  string          // -connect: a dedicated host's quic://HOST:PORT or udp://HOST:PORT (quic.go)
	pin      string          // -pin: its certificate's SHA-256
	pinHash  [32]byte        // -pin, parsed
	secret   string          // -token-secret-file: the host's connect-token secret, to mint a token with
	grant    *connecttoken.Grant

	view *view // the terminal view (nil headless): the wait's and the match's
}

// say writes a progress line on the waiting screen, else to w.
func (o options) say(w io.Writer, format string, args ...any) {
	if o.view != nil {
		o.view.setWaiting(fmt.Sprintf(format, args...))
		return
	}
	fmt.Fprintf(w, format+"\n", args...)
}

// newFlagSet defines the flags on o; -h hides the "internal:" ones.
func newFlagSet(o *options) (*flag.FlagSet, *uint) {
	fs := flag.NewFlagSet("pong", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parseOptions says what went wrong, usage prints -h
	fs.Usage = func() {}
	fs.StringVar(&o.signal, "signal", "", "signaling server `URL` (ws://HOST:PORT, or with /room/NAME; a room token as ?token=T, never printed); empty: start one on loopback and a bot opponent process")
	fs.StringVar(&o.room, "room", "", "room `NAME` on the signaling server (both players use the same one; empty: the server pairs the next two joiners)")
	fs.StringVar(&o.name, "name", defaultName(), "your `name`, as your opponent and spectators see it (at most 32 bytes)")
	fs.StringVar(&o.mode, "mode", modeP2P, "`p2p` (rollback between two peers) or authority (the left player hosts, the right one is its client)")
	fs.DurationVar(&o.grace, "grace", 20*time.Second, "authority mode, hosting: how long a vanished client's paddle and rejoin token are kept")
	fs.Func("absence", "what the match does while the opponent is away: `predict` (its paddle plays on; the default), freeze (both stop until it rejoins: with -rejoin; in authority mode the host's choice, its client rejoining with -rejoin) or forfeit (the match ends)", func(v string) error {
		for a := rollnet.AbsencePredict; a.Valid(); a++ {
			if v == a.String() {
				o.absence = a
				return nil
			}
		}
		return errors.New("want predict, freeze or forfeit")
	})
	fs.BoolVar(&o.bot, "bot", false, "let a bot play this side")
	fs.IntVar(&o.frames, "frames", 0, "stop after `N` frames (0: 600 without a terminal, unlimited on one; -1: unlimited; an authority client back with -rejoin past frame N: N more)")
	fs.IntVar(&o.delay, "delay", 2, "input delay in frames (`F`)")
	fs.Var(&o.impair, "impair", "impair the network: `latency,jitter,loss` added to each direction (up to 1s), e.g. 100ms,15ms,2%")
	fs.BoolVar(&o.spectate, "spectate", false, "watch instead of playing: two bot processes this one starts, or with -signal and -room the match already in that room")
	fs.IntVar(&o.fps, "fps", 60, "`N` frames per second")
	fs.BoolVar(&o.relay, "relay", false, "with -signal: connect only through the TURN relay the signaling server hands out (rollnet-signal -turn-listen)")
	fs.BoolVar(&o.headless, "headless", false, "no terminal view even on a terminal: both sides bots")
	fs.BoolVar(&o.offline, "offline", false, "no network: play a bot in this process")
	fs.DurationVar(&o.timeout, "timeout", 0, "give up waiting for the opponent after `duration` (0: 2m with -signal, 20s otherwise)")
	fs.IntVar(&o.inject, "inject-desync", 0, "testing: corrupt one side's state at frame `F` (the opponent process's; this one's with -signal) to see a desync caught")
	fs.StringVar(&o.record, "record", "", "record this side's match into `FILE` (replay it with -replay)")
	fs.StringVar(&o.replay, "replay", "", "play the match recorded in `FILE` back (headless: check it at full speed) and report ok or the first difference")
	fs.StringVar(&o.rejoin, "rejoin", "", "with -signal and a named -room: keep this player's rejoin token in `FILE`; started again with the same flags while FILE is there, it rejoins its match with the same paddle (P2P; in authority mode a client, within the host's grace window)")
	fs.StringVar(&o.connect, "connect", "", "authority mode: play against the dedicated host at `quic://HOST:PORT` directly over QUIC, or `udp://HOST:PORT` over transport/udp (with -token-secret-file); no signaling server")
	fs.StringVar(&o.pin, "pin", "", "with -connect quic://: the host's certificate `SHA256` (its log's sha256=), accepted whoever signed it")
	fs.StringVar(&o.secret, "token-secret-file", "", "with -connect: mint this client's connect token with the secret in `FILE`, the host's -token-secret-file (standing in for the game's backend, which would mint it); needed by udp://")
	fs.StringVar(&o.web, "web", "", "serve the browser pong and a signaling server on `ADDR` (e.g. 127.0.0.1:8000)")
	seed := fs.Uint("seed", 0, "serve PRNG seed (0: derived from the room name)")
	fs.BoolVar(&o.child, "child", false, "internal: this process is the opponent a parent started")
	fs.IntVar(&o.side, "side", -1, "internal: the side this process plays (0 left, 1 right); -1: by join order")
	return fs, seed
}

const usageText = `pong: rollnet's demo, a deterministic pong played over WebRTC with rollback netcode.

Usage:
  pong                                    play a bot run by a second process, over WebRTC on loopback
  pong -spectate                          watch two bot processes play
  pong -signal ws://HOST:PORT -room NAME  play whoever joins room NAME on a signaling server
  pong -signal ws://HOST:PORT -room NAME -spectate
                                          watch the match being played in room NAME
  pong -signal ws://HOST:PORT -room NAME -rejoin FILE
                                          the same, and if this process dies, start it again with the
                                          same flags: it takes its paddle back (both players add -rejoin)
  pong -offline                           play a bot, no network
  pong -mode authority                    the same, server-authoritative: you host, the bot process is your client
  pong -mode authority -signal URL -room NAME -rejoin FILE
                                          a client keeping its rejoin token in FILE: started again with the same
                                          flags within the host's grace window, it takes its paddle back
  pong host [-signal URL] [-room NAME]    a dedicated pong host (pong host -h lists its flags); players join it with
                                          pong -mode authority -signal URL -room NAME; its log's players=3
                                          are pong's slots: the two paddles and a spectator's

Keys: up/down arrows or W/S move your paddle (green); q, Esc or Ctrl-C quits, also while waiting.
Without a terminal both sides are bots and it plays 600 frames.

Flags:
`

const exitText = `
Exit status:
  0  the match ended cleanly, or you quit (q, Esc, Ctrl-C, SIGTERM), also while waiting
  1  a desync: the peers' checksums of a confirmed frame differ
  2  bad flags
  3  a failure to connect or play: no opponent in time, the room is full, the handshake failed
  4  the opponent (for a spectator, the host) left before the match ended: it quit, or vanished
     and was declared disconnected (with -rejoin: and did not rejoin within 60 s)
  5  -rejoin: the other player refused to take this one back (another match's FILE, the window
     is over); one line says why, and FILE is removed
A parent of player processes (no -signal) exits with its own status, or with theirs when its
own is 0 and theirs is not. Under go run, a Ctrl-C signal (with -web, or outside pong's screen)
makes go run itself exit 1 whatever pong's status: read the status of a built pong.
`

// usage writes -h's text to w, the flags' defaults as defined.
func usage(w io.Writer) {
	var o options
	fs, _ := newFlagSet(&o)
	pub := flag.NewFlagSet("pong", flag.ContinueOnError)
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.HasPrefix(f.Usage, "internal:") {
			pub.Var(f.Value, f.Name, f.Usage)
		}
	})
	pub.SetOutput(w)
	_, _ = io.WriteString(w, usageText)
	pub.PrintDefaults()
	_, _ = io.WriteString(w, exitText)
}

// usageErr is a bad command line (exit status 2), in one line.
type usageErr struct{ msg string }

func (e *usageErr) Error() string { return "pong: " + e.msg }

func usageError(format string, args ...any) error {
	return &usageErr{fmt.Sprintf(format, args...)}
}

// parseOptions checks all flags first: flag.ErrHelp, or a *usageErr.
func parseOptions(args []string) (options, error) {
	var o options
	fs, seed := newFlagSet(&o)
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return o, err
	} else if err != nil {
		return o, usageError("%v", err)
	}
	o.seed = uint32(*seed)
	if fs.NArg() > 0 {
		return o, usageError("unexpected argument %q", fs.Arg(0))
	}
	if err := checkSignal(&o); err != nil {
		return o, err
	}
	if err := checkConnect(&o); err != nil {
		return o, err
	}
	for _, c := range []struct { // a way the command line can be wrong, and what to say then
		bad bool
		msg string
	}{
		{o.frames < -1, fmt.Sprintf("-frames %d: want -1 (unlimited), 0 (the default) or more", o.frames)},
		{o.delay < 0 || o.delay >= capacity, fmt.Sprintf("-delay %d: want 0 to %d frames", o.delay, capacity-1)},
		{o.fps <= 0 || o.fps > 1000, fmt.Sprintf("-fps %d: want 1 to 1000", o.fps)},
		{o.side < -1 || o.side > 1, fmt.Sprintf("-side %d: want -1, 0 or 1", o.side)},
		{o.mode != modeP2P && o.mode != modeAuthority, fmt.Sprintf("-mode %q: want p2p or authority", o.mode)},
		{o.grace <= 0, fmt.Sprintf("-grace %v: want more than 0", o.grace)},
		{o.absence == rollnet.AbsenceFreeze && o.rejoin == "" && o.mode == modeP2P, "-absence freeze waits for the opponent to rejoin: give both players -rejoin (and a named -room)"},
		{o.timeout < 0, "-timeout must be >= 0"},
		{o.room != "" && o.signal == "" && o.connect == "", "-room needs -signal (or -connect)"},
		{!validName(o.name), fmt.Sprintf("-name %q: want 1 to %d bytes of printable characters", o.name, netplay.MaxName)},
		{o.rejoin != "" && o.room == "", "-rejoin needs a named -room (and -signal): a restarted player must find its match's room"},
		{o.rejoin != "" && (o.spectate || o.replay != "" || o.web != ""), "-rejoin is a player's (not with -spectate, -replay or -web)"},
		{o.spectate && o.signal != "" && o.room == "", "-spectate with -signal watches the match in a named -room"},
		{o.offline && (o.signal != "" || o.spectate), "-offline plays no network: no -signal or -spectate"},
		{o.record != "" && (o.offline || o.spectate || o.replay != "" || o.mode == modeAuthority || o.web != ""),
			"-record records a P2P player's match (not with -offline, -spectate, -replay, -mode authority or -web)"},
	} {
		if c.bad {
			return o, &usageErr{c.msg}
		}
	}
	if o.record != "" { // a file that cannot be written fails now, not after the opponent connected
		f, err := os.CreateTemp(filepath.Dir(o.record), ".pong-record-*")
		if err != nil {
			return o, usageError("-record %s: %v", o.record, err)
		}
		_ = f.Close()
		_ = os.Remove(f.Name())
	}
	if o.timeout == 0 {
		o.timeout = 20 * time.Second // a process this one started joins at once
		if o.signal != "" && !o.child {
			o.timeout = 2 * time.Minute // a person on another machine may take a while
		}
	}
	if o.headless = o.headless || !isTerminal(); o.headless {
		o.bot = true
		if o.frames == 0 {
			o.frames = 600
		}
	}
	o.frames = max(o.frames, 0)
	return o, nil
}

// checkSignal checks -signal's URL and takes the room it names as
// -room's (a different -room, or one with room?next=N, conflicts).
func checkSignal(o *options) error {
	if o.signal == "" {
		return nil
	}
	u, err := url.Parse(o.signal)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return usageError("-signal wants ws://HOST:PORT or wss://HOST, got %q", signalurl.Redact(o.signal))
	}
	switch name, ok := strings.CutPrefix(u.Path, "/room/"); {
	case ok:
		if name, err = url.PathUnescape(name); err != nil || name == "" {
			return usageError("-signal %q names no room after /room/", signalurl.Redact(o.signal))
		}
		if o.room != "" && o.room != name {
			return usageError("-signal's URL names room %q and -room names %q: give the room once", name, o.room)
		}
		o.room = name
	case u.Path == "/room" && o.room != "":
		return usageError("-signal's URL pairs the next joiners (room?...) and -room names %q: give one", o.room)
	}
	return nil
}

// validName: 1 to netplay.MaxName bytes of printable UTF-8.
func validName(s string) bool {
	return s != "" && len(s) <= netplay.MaxName && utf8.ValidString(s) &&
		!strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) })
}

// defaultName is the user's login name, or "player".
func defaultName() string {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	if name = strings.ToValidUTF8(name[:min(len(name), netplay.MaxName)], ""); !validName(name) {
		return "player"
	}
	return name
}

func isTerminal() bool {
	return term.IsTerminal(int(os.Stdin.Fd())) && term.IsTerminal(int(os.Stdout.Fd()))
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its outputs and exit status explicit (see exitText).
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "host" {
		return dedicated.Main("pong host", hostGames, args[1:], stdout, stderr) // the dedicated host (authority.go)
	}
	o, err := parseOptions(args)
	if errors.Is(err, flag.ErrHelp) {
		usage(stdout)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "%v (pong -h lists the flags)\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.child { // the parent holds our stdin open: when it ends (or dies), so do we
		var cancel func()
		ctx, cancel = context.WithCancel(ctx)
		go func() { _, _ = io.Copy(io.Discard, os.Stdin); cancel() }()
	}
	if o.web != "" {
		return runWeb(ctx, o.web, stdout, stderr)
	}
	if o.headless {
		return dispatch(ctx, o, stdout, stderr)
	}
	v, err := newView(nil, -1)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailure
	}
	defer v.close()
	v.bot = o.bot
	o.view = v
	stdout, stderr = &restoring{v: v, w: stdout}, &restoring{v: v, w: stderr}
	status := exitFailure
	v.run(func() { status = dispatch(ctx, o, stdout, stderr) })
	return status
}

func dispatch(ctx context.Context, o options, stdout, stderr io.Writer) int {
	switch {
	case o.replay != "":
		return runReplay(ctx, o, stdout, stderr)
	case o.spectate && o.signal != "", o.connect != "":
		return runNet(ctx, o, stdout, stderr, nil)
	case o.spectate, o.signal == "":
		return runParent(ctx, o, stdout, stderr)
	}
	return runNet(ctx, o, stdout, stderr, nil)
}

// restoring gives the terminal back before it writes.
type restoring struct {
	v *view
	w io.Writer
}

func (r *restoring) Write(b []byte) (int, error) {
	r.v.close()
	return r.w.Write(b)
}
