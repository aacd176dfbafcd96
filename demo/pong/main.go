package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"
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
	child    bool // this process is the opponent started by a parent
	side     int  // -1: decided by join order
	timeout  time.Duration
	seed     uint32
	inject   int    // -inject-desync: corrupt the local state at this frame (tests)
	watcher  string // -spectator: the spectator's signaling id (the left side feeds it)
	web      string // -web: serve the browser pong and a signaling server here (web.go)
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("pong", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.signal, "signal", "", "signaling server `URL` (ws://host:port); empty: start one on loopback and a bot opponent process")
	fs.StringVar(&o.room, "room", "", "room `NAME` on the signaling server (both players use the same one; empty: the server pairs the next two joiners)")
	fs.BoolVar(&o.bot, "bot", false, "let a bot play this side")
	fs.IntVar(&o.frames, "frames", 0, "stop after `N` frames (0: 600 without a terminal, unlimited on one; -1: unlimited)")
	fs.IntVar(&o.delay, "delay", 2, "input delay in frames (`F`)")
	fs.Var(&o.impair, "impair", "impair the local side's packets: `latency,jitter,loss`, e.g. 100ms,15ms,2%")
	fs.BoolVar(&o.spectate, "spectate", false, "watch instead of playing: two bot processes this one starts, or with -signal and -room the match already in that room")
	fs.IntVar(&o.fps, "fps", 60, "`N` frames per second")
	fs.BoolVar(&o.headless, "headless", false, "no terminal view even on a terminal: both sides bots")
	fs.BoolVar(&o.offline, "offline", false, "no network: play a bot in this process")
	fs.BoolVar(&o.child, "child", false, "internal: this process is the opponent a parent started")
	fs.IntVar(&o.side, "side", -1, "internal: the side this process plays (0 left, 1 right); -1: by join order")
	fs.DurationVar(&o.timeout, "timeout", 0, "give up waiting for the opponent after `duration` (0: 2m with -signal, 20s otherwise)")
	fs.IntVar(&o.inject, "inject-desync", 0, "testing: corrupt one side's state at frame `F` (the opponent process's; this one's with -signal) to see a desync caught")
	fs.StringVar(&o.watcher, "spectator", "", "internal: the `id` of a spectator in the room")
	fs.StringVar(&o.web, "web", "", "serve the browser pong and a signaling server on `ADDR` (e.g. 127.0.0.1:8000)")
	seed := fs.Uint("seed", 0, "serve PRNG seed (0: derived from the room name)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("pong: unexpected argument %q", fs.Arg(0))
	}
	if o.frames < -1 || o.delay < 0 || o.fps <= 0 || o.fps > 1000 || o.side < -1 || o.side > 1 {
		return o, errors.New("pong: -frames must be >= -1, -delay >= 0, -fps in 1..1000, -side -1, 0 or 1")
	}
	if o.room != "" && o.signal == "" {
		return o, errors.New("pong: -room needs -signal")
	}
	if o.spectate && o.signal != "" && o.room == "" {
		return o, errors.New("pong: -spectate with -signal watches the match in a named -room")
	}
	o.seed = uint32(*seed)
	if o.timeout < 0 {
		return o, errors.New("pong: -timeout must be >= 0")
	}
	if o.timeout == 0 {
		o.timeout = 20 * time.Second // a process this one started joins at once
		if o.signal != "" && !o.child {
			o.timeout = 2 * time.Minute // a person on another machine may take a while
		}
	}
	if !isTerminal() {
		o.headless = true
	}
	if o.headless {
		o.bot = true
		if o.frames == 0 {
			o.frames = 600
		}
	}
	if o.frames < 0 {
		o.frames = 0
	}
	if o.offline && (o.signal != "" || o.spectate) {
		return o, errors.New("pong: -offline plays no network: no -signal or -spectate")
	}
	return o, nil
}

// isTerminal reports whether both stdin and stdout are terminals.
func isTerminal() bool {
	return term.IsTerminal(int(os.Stdin.Fd())) && term.IsTerminal(int(os.Stdout.Fd()))
}

// seedFor derives the serve seed from the room name (FNV-1a), so two
// players in the same room serve alike without agreeing on anything else.
func seedFor(room string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(room); i++ {
		h ^= uint32(room[i])
		h *= 16777619
	}
	return h
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its outputs and exit status explicit: 0 on a clean
// match, 1 on a desync, 2 on bad flags, 3 on a failure to connect or play.
func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.child {
		// The parent holds our stdin open: when it ends, so do we.
		ctx = watchParent(ctx, os.Stdin)
	}
	if o.web != "" {
		return runWeb(ctx, o.web, stdout, stderr)
	}
	if o.spectate && o.signal != "" {
		return runSpectateRoom(ctx, o, stdout, stderr)
	}
	if o.spectate {
		return runSpectate(ctx, o, stdout, stderr)
	}
	if o.signal == "" {
		return runParent(ctx, o, stdout, stderr)
	}
	return runPeer(ctx, o, stdout, stderr)
}

// watchParent returns a context cancelled when r reaches EOF (the parent
// closed its end of our stdin, or died).
func watchParent(ctx context.Context, r io.Reader) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		defer cancel()
		_, _ = io.Copy(io.Discard, r)
	}()
	return ctx
}

// prefixWriter writes each line with a prefix.
type prefixWriter struct {
	prefix string
	w      io.Writer
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := strings.IndexByte(string(p.buf), '\n')
		if i < 0 {
			return len(b), nil
		}
		if _, err := fmt.Fprintf(p.w, "%s%s\n", p.prefix, p.buf[:i]); err != nil {
			return len(b), err
		}
		p.buf = p.buf[i+1:]
	}
}

// flush writes a trailing partial line.
func (p *prefixWriter) flush() {
	if len(p.buf) > 0 {
		fmt.Fprintf(p.w, "%s%s\n", p.prefix, p.buf)
		p.buf = nil
	}
}
