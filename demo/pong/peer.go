package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/localsignal"
	"github.com/rollnet/rollnet/internal/signalurl"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/signaling"
)

// Exit statuses (exitText in main.go says them to the player).
const (
	exitOK            = 0
	exitDesync        = 1
	exitUsage         = 2
	exitFailure       = 3 // failure to connect, or the match ended in an error
	exitOpponentLeft  = 4 // the others left before the match's end
	exitRejoinRefused = 5 // -rejoin: the other player refused to take this one back (FILE removed)
)

// runLocal plays one match, prints its report and returns the exit status.
func runLocal(ctx context.Context, m match, o options, stdout, stderr io.Writer) int {
	v := o.view
	err := play(ctx, m, v, o)
	if v != nil && err != nil && !errors.Is(err, errQuit) {
		h := m.HUD() // why the match ended, on the screen before it closes
		if !errors.Is(err, errPeerLeft) {
			h.Note = err.Error()
		}
		v.hold(m.State(), h, holdEnd)
	}
	if v != nil {
		v.close()
	}
	if f, ok := m.(interface{ finish(time.Duration) }); ok {
		f.finish(time.Second / time.Duration(o.fps))
	}
	r := m.Report()
	if errors.Is(err, errQuit) && r.Frames == 0 {
		_ = m.Close()
		fmt.Fprintln(stdout, "pong: cancelled before the match started")
		return exitOK
	}
	if err != nil && r.Err == "" && !errors.Is(err, errPeerLeft) && !errors.Is(err, errQuit) {
		r.Err = err.Error()
	}
	_ = m.Close()
	r.print(stdout)
	return r.status()
}

// connectFailed says why connecting failed (exit 0 if cancelled).
func connectFailed(err error, stdout, stderr io.Writer) int {
	if errors.Is(err, errCancelled) {
		fmt.Fprintln(stdout, err)
		return exitOK
	}
	fmt.Fprintln(stderr, err)
	return exitFailure
}

func (r report) status() int {
	switch {
	case r.Refused != "":
		return exitRejoinRefused
	case r.Desyncs > 0:
		return exitDesync
	case r.Err != "":
		return exitFailure
	case r.Left != "":
		return exitOpponentLeft
	}
	return exitOK
}

// childArgs are a player process's flags (-frames -1: until we leave).
func childArgs(o options, side, inject int) []string {
	frames := cmp.Or(o.frames, -1)
	args := []string{"-child", "-bot", "-headless", "-name", "bot", "-signal", o.signal, "-room", o.room,
		"-side", strconv.Itoa(side), "-delay", strconv.Itoa(o.delay), "-fps", strconv.Itoa(o.fps), "-mode", o.mode,
		"-timeout", o.timeout.String(), "-seed", strconv.FormatUint(uint64(o.seedOr(o.room)), 10),
		"-inject-desync", strconv.Itoa(inject), "-frames", strconv.Itoa(frames)}
	if o.absence == rollnet.AbsenceForfeit { // (freeze needs -rejoin, which a bot child has not)
		args = append(args, "-absence", o.absence.String())
	}
	return args
}

// runNet joins with the mode's netplay call, calls joined once in, and plays.
func runNet(ctx context.Context, o options, stdout, stderr io.Writer, joined func() error) int {
	o.seed = o.seedOr(o.room)
	cfg := netConfig(o)
	start := netplay.Join[State, Input]
	switch {
	case o.mode == modeP2P && o.spectate:
		start = netplay.Watch[State, Input]
	case o.mode == modeP2P:
	case o.connect != "":
		o.say(stdout, "pong: dialing %s", o.connect)
		cfg.QUIC = netplay.QUICHost{URL: o.connect, PinSHA256: o.pinHash, Grant: o.grant}
		start = func(cfg netplay.Config, sim func(*State, []Input, rollnet.Frame)) (*netplay.Match[State, Input], error) {
			return netplay.Connect(cfg, sim)
		}
	case o.side == 0 && !o.spectate:
		cfg.LocalPlayers = 1
		start = func(cfg netplay.Config, sim func(*State, []Input, rollnet.Frame)) (*netplay.Match[State, Input], error) {
			return netplay.Host(cfg, sim)
		}
	case o.side == 1 || o.spectate:
		start = func(cfg netplay.Config, sim func(*State, []Input, rollnet.Frame)) (*netplay.Match[State, Input], error) {
			return netplay.Connect(cfg, sim)
		}
	default:
		start = func(cfg netplay.Config, sim func(*State, []Input, rollnet.Frame)) (*netplay.Match[State, Input], error) {
			return netplay.HostOrConnect(cfg, sim)
		}
	}
	nm, err := start(cfg, simulate)
	if err != nil {
		if errors.Is(err, netplay.ErrToken) {
			fmt.Fprintf(stderr, "pong: -rejoin %s: %v\n", o.rejoin, err)
			return exitUsage
		}
		fmt.Fprintln(stderr, err)
		return exitFailure
	}
	m, err := newNetMatch(nm, o, time.Now)
	if err != nil {
		_ = nm.Close()
		fmt.Fprintln(stderr, err)
		return exitFailure
	}
	if o.headless && (!o.child || o.mode == modeAuthority) {
		m.out = stdout
	}
	_, back := nm.Token()
	what := func() string { // what it waits for, once in the room
		switch {
		case nm.Mode() == netplay.ModeHost:
			return fmt.Sprintf("hosting: waiting up to %v for a client", o.timeout)
		case nm.Mode() == netplay.ModeClient:
			return "joining its host"
		case o.spectate:
			return fmt.Sprintf("waiting up to %v for a match to watch", o.timeout)
		case back:
			return "rejoining the match"
		}
		return fmt.Sprintf("waiting up to %v for an opponent", o.timeout)
	}
	if err := joinRoom(ctx, nm, o, stdout, what, joined); err != nil {
		if !errors.Is(err, errCancelled) {
			err = m.failed(err)
		}
		_ = nm.Close()
		if m.refused != "" {
			fmt.Fprintln(stdout, m.refused)
			return exitRejoinRefused
		}
		return connectFailed(err, stdout, stderr)
	}
	return runLocal(ctx, m, o, stdout, stderr)
}

// waitNoteEvery is how often joinRoom says it still waits (a quarter of
// -timeout when that is shorter).
const waitNoteEvery = 10 * time.Second

// waitingFor is what a match still connecting waits for, in words.
func waitingFor(nm *netplay.Match[State, Input]) string {
	switch {
	case nm.Mode() == netplay.ModeSpectator:
		return "no match to watch in it"
	case nm.Mode() == netplay.ModeHost:
		return "no client"
	case nm.Mode() == netplay.ModeClient:
		return "no host answering"
	}
	return "no opponent"
}

// joinRoom ticks nm into its room, says so and calls joined, then until
// its session exists, on the waiting screen if any (q: errCancelled).
func joinRoom(ctx context.Context, nm *netplay.Match[State, Input], o options, stdout io.Writer, what func() string, joined func() error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if o.view != nil {
		defer o.view.waiting(cancel)()
	}
	where := cmp.Or(o.connect, signalurl.Redact(o.signal))
	o.say(stdout, "pong: joining %s", where)
	tick := time.NewTicker(time.Second / time.Duration(o.fps))
	defer tick.Stop()
	every := min(waitNoteEvery, o.timeout/4) // a note while nothing happens
	var since, note time.Time
	for in := false; !in || nm.State() == nil; {
		if !in && nm.Transport() != nil && nm.Mode() != 0 {
			in = true
			since = time.Now()
			note = since.Add(every)
			o.say(stdout, "pong: in room %s on %s; %s", nm.Room(), where, what())
			if joined != nil {
				if err := joined(); err != nil {
					return err
				}
			}
			continue
		}
		select {
		case <-ctx.Done():
			return errCancelled
		case now := <-tick.C:
			if in && every > 0 && now.After(note) {
				note = now.Add(every)
				o.say(stdout, "pong: room %s: still %s, %v of %v waited", nm.Room(), waitingFor(nm), now.Sub(since).Round(time.Second), o.timeout)
			}
		}
		if _, err := nm.AdvanceFrame(0); err != nil {
			return err
		}
	}
	return nil
}

// runParent is pong without -signal: a signaling server on loopback and
// a bot process as the opponent; with -spectate two bot processes, this
// one watching (in the authority mode the left one hosts and gives its
// slots in join order, so this one joins once the right one plays).
func runParent(ctx context.Context, o options, stdout, stderr io.Writer) int {
	if o.offline {
		return runLocal(ctx, newOfflineMatch(o.seedOr("offline"), max(o.side, 0)), o, stdout, stderr)
	}
	out := &syncWriter{w: stdout}
	srv, err := localsignal.Start(signaling.ServerConfig{}) // on loopback, a new room for this process and the ones it starts
	if err != nil {
		fmt.Fprintln(stderr, "pong: signaling server:", err)
		return exitFailure
	}
	defer srv.Close()
	room := make([]byte, 4)
	_, _ = rand.Read(room)
	o.signal, o.room = srv.URL(), "pong-"+hex.EncodeToString(room)
	inject := o.inject // a desync is injected on one side only: the opponent's
	o.inject = 0
	labels, sides, who, ordered := []string{"[opponent] "}, []int{1}, "the opponent", false
	switch {
	case !o.spectate:
		o.side = 0
	case o.mode == modeP2P: // labelled by start: netplay seats them by their ids
		labels, sides, who = []string{"[player 1] ", "[player 2] "}, []int{0, 1}, "a player"
	default:
		labels, sides, who, ordered = []string{"[left] ", "[right] "}, []int{0, 1}, "a player", true
	}
	if o.headless {
		fmt.Fprintf(out, "pong: signaling on %s, room %s; starting %s\n", o.signal, o.room, map[bool]string{false: "the opponent process", true: "two player processes to watch"}[o.spectate])
	}
	// Their output (kept until the end while a screen is up) goes through watch.
	var kept *syncWriter
	var sink io.Writer = out
	if !o.headless {
		kept = &syncWriter{}
		sink = kept
	}
	seen := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
	watch := &lineWatch{w: sink, want: map[string]chan struct{}{labels[0] + "pong: in room": seen[0], labels[len(labels)-1] + "pong: match started": seen[1]}}
	var players []*opponent
	start := func() error {
		for i, label := range labels {
			if i > 0 && ordered {
				if err := awaitLine(ctx, seen[0], "the left player never joined the room", o.timeout); err != nil {
					return err
				}
			}
			p, err := startProcess(childArgs(o, sides[i], inject), watch, true, label)
			if err != nil {
				return err
			}
			players = append(players, p)
		}
		if ordered {
			return awaitLine(ctx, seen[1], "the right player never joined the host", o.timeout)
		}
		return nil
	}
	var status int
	if !ordered {
		status = runNet(ctx, o, out, stderr, start)
	} else if err := start(); err != nil {
		status = connectFailed(err, out, stderr)
	} else {
		status = runNet(ctx, o, out, stderr, nil)
	}
	// Our side is closed: players see us leave (their stdin closes) and end.
	grace := 10 * time.Second
	if o.spectate && o.frames == 0 {
		grace = 0
	}
	for _, p := range players {
		status = p.reap(grace, status, who, out)
	}
	if kept != nil {
		_, _ = io.WriteString(out, kept.String())
	}
	return status
}

// awaitLine waits up to d for seen to close.
func awaitLine(ctx context.Context, seen <-chan struct{}, what string, d time.Duration) error {
	select {
	case <-seen:
		return nil
	case <-ctx.Done():
		return errCancelled
	case <-time.After(d):
		return fmt.Errorf("pong: %s within %v", what, d)
	}
}

// lineWatch writes to w, closing want's channel when a line holds its text.
type lineWatch struct {
	mu   sync.Mutex
	w    io.Writer
	want map[string]chan struct{}
}

func (l *lineWatch) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for text, seen := range l.want {
		if strings.Contains(string(p), text) {
			close(seen)
			delete(l.want, text)
		}
	}
	return l.w.Write(p)
}

func (o options) seedOr(room string) uint32 {
	if o.seed != 0 {
		return o.seed
	}
	return seedFor(room)
}
