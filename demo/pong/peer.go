package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
)

// Exit statuses.
const (
	exitOK      = 0
	exitDesync  = 1
	exitUsage   = 2
	exitFailure = 3 // failure to connect, or the match ended in an error
	// exitOpponentLeft: the opponent (a spectator's host) left before the
	// match's end; the report says whether it quit or vanished.
	exitOpponentLeft = 4
	// exitRejoinRefused: -rejoin, and the other player refused to take
	// this one back (another match's FILE, the window is over); one line
	// says why, and FILE is removed.
	exitRejoinRefused = 5
)

// runLocal plays one match in this process and prints its report. It
// returns the exit status.
func runLocal(ctx context.Context, m match, o options, stdout, stderr io.Writer) int {
	v := o.view
	if v != nil {
		v.side = m.Side()
	}
	err := play(ctx, m, v, o)
	if v != nil && err != nil && !errors.Is(err, errQuit) {
		// Why the match ended, on the screen before it closes.
		h := m.HUD()
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

// connectFailed reports why connecting failed and returns the exit
// status: 0 if the player cancelled the wait, else a failure to connect.
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

// runParent is `go run ./demo/pong` with no -signal: a signaling server on
// loopback, this process as a player, and a second process of this
// program as the other one (a bot), over WebRTC.
func runParent(ctx context.Context, o options, stdout, stderr io.Writer) int {
	if o.offline {
		return runLocal(ctx, newOfflineMatch(o.seedOr("offline"), max(o.side, 0)), o, stdout, stderr)
	}
	out := &syncWriter{w: stdout}
	srv, err := hostRoom(&o)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailure
	}
	defer srv.close()
	o.side = 0
	inject := o.inject // a desync is injected on one side only: the opponent's
	o.inject = 0
	if o.headless {
		fmt.Fprintf(out, "pong: signaling on %s, room %s; starting the opponent process\n", srv.url, o.room)
	}
	var opp *opponent
	// Joined: now start the opponent (in the authority mode, this process
	// hosts and the opponent is its client).
	startOpponent := func() error {
		var err error
		opp, err = startProcess(childArgs(o, 1, inject), out, o.headless, "[opponent] ")
		return err
	}
	var status int
	if o.mode == modeAuthority {
		status = runAuth(ctx, o, out, stderr, startOpponent)
	} else {
		status = runP2P(ctx, o, out, stderr, startOpponent)
	}
	if opp == nil {
		return status
	}
	// Our side is done and closed: the opponent sees us leave and ends too.
	return opp.reap(10*time.Second, status, "the opponent", out)
}

// hostRoom starts a signaling server on loopback and points o at a new
// room on it, for this process and the player processes it starts.
func hostRoom(o *options) (*signalServer, error) {
	srv, err := startSignalServer()
	if err != nil {
		return nil, err
	}
	o.signal, o.room = srv.url, "pong-"+randomHex(4)
	return srv, nil
}

// childArgs are the flags of a player process started by this one.
func childArgs(o options, side, inject int) []string {
	args := []string{
		"-child", "-bot", "-headless", "-name", "bot",
		"-signal", o.signal, "-room", o.room, "-side", strconv.Itoa(side),
		"-delay", strconv.Itoa(o.delay),
		"-fps", strconv.Itoa(o.fps),
		"-mode", o.mode,
		"-timeout", o.timeout.String(),
		"-seed", strconv.FormatUint(uint64(o.seedOr(o.room)), 10),
	}
	if o.watcher != "" {
		args = append(args, "-spectator", o.watcher)
	}
	if inject > 0 {
		args = append(args, "-inject-desync", strconv.Itoa(inject))
	}
	if o.frames == 0 {
		// Play until the parent leaves.
		return append(args, "-frames", "-1")
	}
	return append(args, "-frames", strconv.Itoa(o.frames))
}

// runPeer is a process that joins a room on a signaling server: the
// opponent the parent started, or a player on another machine.
func runPeer(ctx context.Context, o options, stdout, stderr io.Writer) int {
	if o.mode == modeAuthority {
		return runAuth(ctx, o, stdout, stderr, nil)
	}
	return runP2P(ctx, o, stdout, stderr, nil)
}

// runP2P plays the P2P mode: it joins the room (netplay.Join, or Watch
// with -spectate), calls joined (if not nil) once in it, waits for the
// opponent and plays.
func runP2P(ctx context.Context, o options, stdout, stderr io.Writer, joined func() error) int {
	o.seed = o.seedOr(o.room)
	start := netplay.Join[State, Input]
	if o.spectate {
		start = netplay.Watch[State, Input]
	}
	nm, err := start(p2pConfig(o), simulate)
	if err != nil {
		if errors.Is(err, netplay.ErrToken) {
			fmt.Fprintf(stderr, "pong: -rejoin %s: %v\n", o.rejoin, err)
			return exitUsage
		}
		fmt.Fprintln(stderr, err)
		return exitFailure
	}
	var m interface {
		match
		setOut(io.Writer)
		setLink(link)
	}
	what := fmt.Sprintf("waiting up to %v for an opponent", o.timeout)
	ready := func() bool { return nm.P2P() != nil }
	var player *netMatch
	if o.spectate {
		m, what = newSpectatorMatch(nm, o, time.Now), "watching its match"
		ready = func() bool { return nm.Spectator() != nil }
	} else {
		player = newNetMatch(nm, o, time.Now)
		m = player
		if player.back {
			what = "rejoining the match"
		}
	}
	inRoom, opened, err := joinRoom(ctx, nm, o, stdout, func() string { return what }, joined, ready)
	if err != nil {
		_ = nm.Close()
		switch {
		case errors.Is(err, errCancelled):
		case player != nil:
			if err = player.failed(err); player.refused != "" {
				fmt.Fprintln(stdout, player.refused)
				return exitRejoinRefused
			}
		case errors.Is(err, netplay.ErrTimeout):
			err = fmt.Errorf("pong: room %s: no match in it within %v; a spectator joins once both players are", nm.Room(), o.timeout)
		default:
			err = fmt.Errorf("pong: %w", err)
		}
		return connectFailed(err, stdout, stderr)
	}
	k := linkOfMatch(nm) // dialed now
	k.inRoom, k.opened = inRoom, opened
	m.setLink(k)
	if o.headless && !o.child {
		m.setOut(stdout)
	}
	return runLocal(ctx, m, o, stdout, stderr)
}

// setOut sends a match's progress lines to w (headless).
func (l *matchLog) setOut(w io.Writer) { l.out = w }

// setLink sets what the match shows of its connection.
func (l *matchLog) setLink(k link) { l.link = k }

// joinRoom ticks nm until it is in its room, says so (what follows "in
// room R on S;") and calls joined (if not nil), then until ready: on the
// waiting screen if there is one (q, Esc or Ctrl-C cancel: errCancelled).
//
// inRoom is when it joined the room; opened how long after that the
// first data channel opened (the report's path line; 0 when none is open
// yet, or without WebRTC).
func joinRoom(ctx context.Context, nm *netplay.Match[State, Input], o options, stdout io.Writer, what func() string, joined func() error, ready func() bool) (inRoom time.Time, opened time.Duration, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if o.view != nil {
		defer o.view.waiting(cancel)()
	}
	where := netplay.RedactURL(o.signal)
	if o.connect != "" {
		where = o.connect
	}
	o.say(stdout, "pong: joining %s", where)
	tick := time.NewTicker(time.Second / time.Duration(o.fps))
	defer tick.Stop()
	var open [1]transport.Peer
	isOpen := func() {
		if rtc := nm.WebRTC(); !inRoom.IsZero() && opened == 0 && rtc != nil && len(rtc.Peers(open[:0])) > 0 {
			opened = max(time.Since(inRoom), time.Millisecond)
		}
	}
	for in := false; !in || !ready(); isOpen() {
		if !in && nm.Transport() != nil && nm.Mode() != 0 {
			in, inRoom = true, time.Now()
			o.say(stdout, "pong: in room %s on %s; %s", nm.Room(), where, what())
			if joined != nil {
				if err := joined(); err != nil {
					return inRoom, 0, err
				}
			}
			continue
		}
		select {
		case <-ctx.Done():
			return inRoom, 0, errCancelled
		case <-tick.C:
		}
		if _, err := nm.AdvanceFrame(0); err != nil {
			return inRoom, 0, err
		}
	}
	isOpen()
	return inRoom, opened, nil
}

// runSpectate is `pong -spectate`: a signaling server on loopback, two bot
// processes playing each other over WebRTC, and this process watching
// their match as a spectator (netplay.Watch), fed by the seat-0 player.
func runSpectate(ctx context.Context, o options, stdout, stderr io.Writer) int {
	out := &syncWriter{w: stdout}
	srv, err := hostRoom(&o)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailure
	}
	defer srv.close()
	if o.headless {
		fmt.Fprintf(out, "pong: signaling on %s, room %s; starting two player processes to watch\n", srv.url, o.room)
	}
	var players [2]*opponent
	status := runP2P(ctx, o, out, stderr, func() error {
		var err error
		// Labelled by start, not by side: netplay seats them by their ids.
		if players[0], err = startProcess(childArgs(o, 0, 0), out, o.headless, "[player 1] "); err == nil {
			players[1], err = startProcess(childArgs(o, 1, 0), out, o.headless, "[player 2] ")
		}
		return err
	})
	return reapPlayers(players[:], o, status, out)
}

func (o options) seedOr(room string) uint32 {
	if o.seed != 0 {
		return o.seed
	}
	return seedFor(room)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
