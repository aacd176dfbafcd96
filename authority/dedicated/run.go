package dedicated

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/internal/natsauth"
	"github.com/rollnet/rollnet/playout"
	"github.com/rollnet/rollnet/transport"
)

// Exit statuses of Main.
const (
	exitOK      = 0
	exitUsage   = 2
	exitFailure = 3
)

// noticeWait is how long the transport outlives the host's disconnect
// notices: three times the link's default keep-alive (200 ms), a client
// dropping the host after two.
const noticeWait = 600 * time.Millisecond

// limits are the flags that bound what the host holds and does.
type limits struct {
	inputAhead, packets, joins int
	grace, timeout             time.Duration
	maxPeers                   int
	joinTimeout                time.Duration
	perAddress, budget         int
	waitFor                    int
	lobby                      time.Duration
	absence                    rollnet.Absence
}

type options struct {
	name, game, signal, room string
	fps, frames              int
	statsEvery               time.Duration
	lim                      limits
	logLevel                 string
	logJSON                  bool
	q                        quicOptions
	fl                       fleetOptions
}

func parse(name string, gs games, args []string, stderr io.Writer) (options, error) {
	o := options{name: name}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.game, "game", "", "the registered `game` to host (empty: the only one)")
	fs.StringVar(&o.signal, "signal", "", "signaling server `URL` (ws://HOST:PORT); empty: start one on loopback and log its URL")
	fs.StringVar(&o.room, "room", "rollnet-host", "the room `NAME` clients join")
	fs.IntVar(&o.fps, "fps", 60, "the fixed step, `N` frames per second (clients must use the same)")
	fs.IntVar(&o.frames, "frames", 0, "stop after `N` frames (0: run until SIGINT or SIGTERM)")
	fs.DurationVar(&o.statsEvery, "stats-every", 5*time.Second, "log the frame and every client's figures this often (0: never)")
	fs.IntVar(&o.lim.inputAhead, "input-ahead", 32, "frames past the host's an input may be for and still be held (1-64)")
	fs.IntVar(&o.lim.packets, "max-packets-per-tick", 64, "packets read from one client per tick; more are dropped and counted")
	fs.IntVar(&o.lim.joins, "max-joins-per-tick", 4, "Hellos from unknown peers handled per tick")
	fs.IntVar(&o.lim.maxPeers, "max-peers", 0, "WebRTC peers known at once (0: twice the game's clients plus 4)")
	fs.DurationVar(&o.lim.grace, "grace", authority.DefaultGrace, "how long an away client's slots and resume token are kept")
	fs.DurationVar(&o.lim.timeout, "timeout", 5*time.Second, "silence after which a client is away")
	fs.DurationVar(&o.lim.joinTimeout, "join-timeout", 5*time.Second, "how long a new client may go without a valid input before its slot is freed")
	fs.IntVar(&o.lim.perAddress, "max-clients-per-address", 4, "clients one address may hold")
	fs.IntVar(&o.lim.budget, "client-budget", authority.ClientBudgetDefault, "bytes a second of states and repairs one client may be sent")
	fs.IntVar(&o.lim.waitFor, "wait-for", 0, "hold frame 0 until `N` players are connected, then start the match for all (0: start at launch)")
	fs.DurationVar(&o.lim.lobby, "lobby-timeout", 0, "with -wait-for, start with whoever is there after this long (0: wait for them however long)")
	fs.Func("absence", "what the match does while a client's player is away: `predict` (its input is predicted; the default), freeze (every client stops at one frame until the player rejoins or its -grace passes) or forfeit (the match ends there, for the game to decide)", func(v string) error {
		for a := rollnet.AbsencePredict; a.Valid(); a++ {
			if v == a.String() {
				o.lim.absence = a
				return nil
			}
		}
		return fmt.Errorf("want predict, freeze or forfeit")
	})
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.BoolVar(&o.logJSON, "log-json", false, "log JSON instead of text")
	o.q.register(fs)
	o.fl.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s [flags]\n\nA dedicated host of rollnet's server-authoritative mode. Games: %s.\n\nFlags:\n",
			name, strings.Join(gs.names(), ", "))
		natsauth.PrintDefaults(fs, stderr, "The NATS connection of -fleet (credentials and TLS; see package fleet's trust model):")
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("%w: unexpected argument %q", ErrUsage, fs.Arg(0))
	case o.fps < 1 || o.fps > 1000:
		return o, fmt.Errorf("%w: -fps %d: want 1 to 1000", ErrUsage, o.fps)
	case o.frames < 0 || o.statsEvery < 0 || o.lim.grace < 0 || o.lim.timeout <= 0:
		return o, fmt.Errorf("%w: -frames, -stats-every and -grace must be >= 0, -timeout > 0", ErrUsage)
	case o.lim.packets < 1 || o.lim.joins < 1 || o.lim.maxPeers < 0:
		return o, fmt.Errorf("%w: -max-packets-per-tick and -max-joins-per-tick must be >= 1, -max-peers >= 0", ErrUsage)
	case o.lim.joinTimeout <= 0 || o.lim.perAddress < 1 || o.lim.budget < 1:
		return o, fmt.Errorf("%w: -join-timeout must be > 0, -max-clients-per-address and -client-budget >= 1", ErrUsage)
	case o.lim.waitFor < 0 || o.lim.lobby < 0:
		return o, fmt.Errorf("%w: -wait-for and -lobby-timeout must be >= 0", ErrUsage)
	case o.room == "":
		return o, fmt.Errorf("%w: -room is empty", ErrUsage)
	}
	if err := o.q.validate(); err != nil {
		return o, err
	}
	if err := o.fl.validate(o.q); err != nil {
		return o, err
	}
	if o.signal != "" {
		if u, err := url.Parse(o.signal); err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
			return o, fmt.Errorf("%w: -signal wants ws://HOST:PORT or wss://HOST, got %q", ErrUsage, o.signal)
		}
	}
	return o, nil
}

// Main is the command: it hosts one of games (-game picks it by name; the
// only one without) until SIGINT or SIGTERM (or -frames) and returns the
// exit status. name is the command's name in messages.
func Main(name string, games []Game, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := Run(ctx, name, games, args, stderr, nil)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, ErrUsage), strings.HasPrefix(err.Error(), "flag"):
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	return exitFailure
}

// Run parses args and hosts one of games until ctx ends or -frames are
// played; logs go to logs. games must name each game once, each with a
// Simulate (else an error wrapping rollnet.ErrConfig). ready, when not
// nil, is called with the room's join URL once the host is in it (empty
// with -webrtc=false; the QUIC listener's address and certificate hash are
// logged, "quic listening", before).
func Run(ctx context.Context, name string, games []Game, args []string, logs io.Writer, ready func(joinURL string)) error {
	gs, err := checkGames(games)
	if err != nil {
		return err
	}
	o, err := parse(name, gs, args, logs)
	if err != nil {
		return err
	}
	g, gameName, err := gs.lookup(o.game)
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return fmt.Errorf("%w: -log-level: %w", ErrUsage, err)
	}
	hopts := &slog.HandlerOptions{Level: level}
	var handler slog.Handler = slog.NewTextHandler(logs, hopts)
	if o.logJSON {
		handler = slog.NewJSONHandler(logs, hopts)
	}
	log := slog.New(handler)

	if o.fl.url != "" {
		return runFleet(ctx, o, g, gameName, log, ready)
	}
	players, perClient := g.players()
	maxPeers := o.lim.maxPeers
	if maxPeers == 0 {
		maxPeers = 2*(players/perClient) + 4
	}
	ts, err := openTransports(ctx, o, maxPeers, log)
	if err != nil {
		return err
	}
	defer ts.close()
	// The host announces itself through netplay: netplay.Connect finds it,
	// and a client with other settings (or a P2P peer) is told at once.
	an, err := greeting.NewAnnouncer(ts.tr, greeting.Announcement{Name: announced(name, gameName), Players: players, FrameRate: o.fps,
		Settings: g.settings(ts.room), Grace: graceOr(o.lim.grace), MaxPeers: maxPeers})
	if err != nil {
		return err
	}
	tr, join := an, ts.join
	h, err := g.open(tr, ts.room, o.lim, rollnet.NetConfig{FrameRate: o.fps, DisconnectTimeout: o.lim.timeout})
	if err != nil {
		return err
	}
	log.Info("hosting", "game", gameName, "room", ts.room, "join", join, "id", ts.id,
		"players", players, "clients", players/perClient, "fps", o.fps)
	if ready != nil {
		ready(join)
	}
	err = loop(ctx, h, o, log, announcer{say: g.announce(), an: an, buf: make([]byte, 0, transport.MaxDatagram)})
	// Close tells every client (a disconnect notice each); a client drops
	// the host twice its keep-alive after the notice if nothing follows, so
	// the transport stays open past that: the client hears the notice, not
	// a broken connection.
	_ = h.Close()
	time.Sleep(noticeWait)
	st := h.Stats()
	log.Info("stopped", "frame", st.Frame, "joined", st.Joined, "resumed", st.Rejoined, "expired", st.Expired,
		"hellos_refused", st.HellosRefused, "hellos_dropped", st.HellosDropped, "unknown_packets", st.UnknownPackets)
	ts.logSends(log)
	return err
}

// loop runs the fixed step on the wall clock until ctx ends or the frame
// budget is spent, logging what happens to clients.
func loop(ctx context.Context, h host, o options, log *slog.Logger, a announcer) error {
	pc, err := newPacer(o.fps)
	if err != nil {
		return err
	}
	defer pc.stop()
	w := watcher{log: log, waiting: o.lim.waitFor > 0}
	if w.waiting {
		log.Info("lobby: holding frame 0 until the players are there", "wait_for", o.lim.waitFor, "lobby_timeout", o.lim.lobby)
	}
	lastStats := time.Now()
	for {
		select {
		case <-ctx.Done():
			log.Info("shutting down: telling the clients", "frame", h.Frame())
			return nil
		case <-pc.tick.C:
			now, n := pc.owed()
			for range n {
				if o.frames > 0 && int(h.Frame()) >= o.frames {
					log.Info("frame budget spent", "frames", o.frames)
					return nil
				}
				if err := h.AdvanceFrame(); err != nil {
					return err
				}
				w.watch(h)
				a.ticks++
				a.announce(h, o.fps)
			}
			if o.statsEvery > 0 && now.Sub(lastStats) >= o.statsEvery {
				lastStats = now
				w.stats(h)
			}
		}
	}
}

// pacer runs the fixed step on the wall clock: at each tick of its
// ticker, owed is the number of frames due since the last.
type pacer struct {
	tick *time.Ticker
	ts   *playout.Timestep
	last time.Time
}

func newPacer(fps int) (*pacer, error) {
	step := time.Second / time.Duration(fps)
	ts, err := playout.NewTimestep(playout.TimestepConfig{Step: step})
	if err != nil {
		return nil, err
	}
	return &pacer{tick: time.NewTicker(step), ts: ts, last: time.Now()}, nil
}

// owed returns the time now and the frames due by then (at most the
// timestep's cap), after a tick of p.tick. It reads the clock rather
// than taking the tick's value: a ticker read late hands over the time
// the missed tick was due, so a host whose process paused would run one
// frame on waking and the others a tick later, its clients a tick longer
// without a state. Read now, it runs every frame it owes at once.
func (p *pacer) owed() (time.Time, int) {
	now := time.Now()
	n := p.ts.Advance(now.Sub(p.last))
	p.last = now
	return now, n
}

func (p *pacer) stop() { p.tick.Stop() }

// announcer sends, after each frame, the game's own message (Sim.Announce)
// to every connected client, and four times a second
// the roster (the slots' names, who is away and for how long).
type announcer struct {
	say   func(dst []byte, frame rollnet.Frame, crc uint32) []byte
	an    *greeting.Announcer
	buf   []byte
	cs    []authority.HostClientStats
	ticks int // counted, not frames: a host holding its lobby does not advance
}

func (a *announcer) announce(h host, fps int) {
	f := h.Frame() - 1
	if a.ticks%(fps/4+1) == 1 {
		a.cs = h.Clients(a.cs[:0])
		a.an.Roster(len(a.cs), func(i int) (transport.Peer, int, bool) { c := &a.cs[i]; return c.Peer, c.First, c.Away })
	}
	if a.say == nil {
		return
	}
	crc, err := h.ChecksumAt(f)
	if err != nil {
		return
	}
	if a.buf = a.say(a.buf[:0], f, crc); len(a.buf) == 0 {
		return
	}
	a.cs = h.Clients(a.cs[:0])
	for _, c := range a.cs {
		if !c.Away {
			_ = a.an.Send(c.Peer, a.buf)
		}
	}
}

// watcher logs clients joining, resuming, leaving and expiring.
type watcher struct {
	log   *slog.Logger
	last  authority.HostStats
	cs    []authority.HostClientStats
	evs   []rollnet.Event
	known map[transport.Peer]bool // the connections of the clients last seen
	// waiting: the host holds its lobby (-wait-for), as last logged
	waiting bool
}

func (w *watcher) watch(h host) {
	st := h.Stats()
	if w.waiting && !st.Waiting {
		w.waiting = false
		w.log.Info("match started: frame 0 for every client", "players", st.Present, "clients", st.Clients)
	}
	if st.Joined != w.last.Joined || st.Rejoined != w.last.Rejoined || st.Expired != w.last.Expired || st.RejoinsRefused != w.last.RejoinsRefused {
		w.cs = h.Clients(w.cs[:0])
		var peer string
		for _, c := range w.cs {
			if !c.Away && (peer == "" || !w.known[c.Peer]) {
				peer = string(c.Peer) // the newest connection, if one is new
			}
		}
		if w.known == nil {
			w.known = map[transport.Peer]bool{}
		}
		clear(w.known)
		for _, c := range w.cs {
			w.known[c.Peer] = true
		}
		if st.RejoinsRefused > w.last.RejoinsRefused {
			w.log.Info("resume rejected: the token is void (its grace window ran out); a fresh slot follows", "frame", st.Frame)
		}
		if st.Expired > w.last.Expired {
			w.log.Info("client expired: its grace window ran out, its slots are free", "frame", st.Frame, "clients", st.Clients)
		}
		if st.Joined > w.last.Joined {
			w.log.Info("client joined", "peer", peer, "frame", st.Frame, "clients", st.Clients)
		}
		if st.Rejoined > w.last.Rejoined {
			w.log.Info("client resumed", "peer", peer, "frame", st.Frame, "clients", st.Clients)
		}
		for _, c := range w.cs {
			w.log.Debug("client", "peer", string(c.Peer), "slot", c.First+1, "slots", c.Slots, "away", c.Away)
		}
	}
	w.last = st
	w.evs = h.Events(w.evs[:0])
	for _, e := range w.evs {
		switch e.Kind {
		case rollnet.EventNetworkInterrupted:
			w.log.Info("client silent", "peer", string(e.Peer), "frame", st.Frame, "away_in", e.Timeout)
		case rollnet.EventNetworkResumed:
			w.log.Info("client heard again", "peer", string(e.Peer), "frame", st.Frame)
		case rollnet.EventDisconnected:
			w.log.Info("client away: its slots are predicted, its token valid for the grace window", "peer", string(e.Peer), "frame", st.Frame)
		}
	}
}

func (w *watcher) stats(h host) {
	st := h.Stats()
	w.cs = h.Clients(w.cs[:0])
	w.log.Info("stats", "frame", st.Frame, "clients", st.Clients, "rollbacks", st.Rollbacks, "resimulated", st.ResimulatedFrames,
		"hellos_refused", st.HellosRefused, "hellos_dropped", st.HellosDropped, "unknown_packets", st.UnknownPackets)
	for _, c := range w.cs {
		w.log.Info("client stats", "peer", string(c.Peer), "slot", c.First+1, "away", c.Away,
			"rtt", c.Link.RTT.Round(100*time.Microsecond), "inputs_early", fmt.Sprintf("%.1f", c.Depth), "advised_rate", fmt.Sprintf("%+.1f%%", 100*c.Rate),
			"late", c.LateInputs, "predicted", c.PredictedInputs, "malformed", c.Link.Malformed, "flooded", c.Flooded)
	}
}

// graceOr is the grace a host runs with for the -grace flag's value g: 0
// means the authority package's default, as HostConfig.Grace does.
func graceOr(g time.Duration) time.Duration {
	if g == 0 {
		return authority.DefaultGrace
	}
	return g
}

// announced is the name a host announces: the command's and its game's
// ("rollnet-host (court)"), so that a client of another game that reaches
// it reads which game it found.
func announced(name, game string) string {
	s := name + " (" + game + ")"
	if len(s) > greeting.MaxName {
		return name[:min(len(name), greeting.MaxName)]
	}
	return s
}
