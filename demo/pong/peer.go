package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/rollnet/rollnet/netplay"
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
// loopback, this process as the left player, and a second process of this
// program as the right one (a bot), over WebRTC.
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
	// Joined: now start the opponent, which joins second and so plays
	// the right side (in the authority mode: this process hosts).
	startOpponent := func() error {
		var err error
		opp, err = startProcess(childArgs(o, 1, inject), out, o.headless, "[opponent] ")
		return err
	}
	if o.mode == modeAuthority {
		status := runAuth(ctx, o, out, stderr, startOpponent)
		if opp == nil {
			return status
		}
		return opp.reap(10*time.Second, status, "the opponent", out)
	}
	c, err := connect(ctx, o, func(context.Context, *conn) error { return startOpponent() })
	if err != nil {
		if opp != nil {
			opp.finish(time.Second)
			opp.flush(out)
		}
		return connectFailed(err, out, stderr)
	}
	status := runNet(ctx, c, o, out, stderr)
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
	if o.rejoin != "" {
		var err error
		if o.back, err = readRejoin(o); err != nil {
			fmt.Fprintf(stderr, "%v\n", err)
			return exitUsage
		}
	}
	var joined func(context.Context, *conn) error
	if o.back != nil {
		joined = func(_ context.Context, c *conn) error { return rejoinRoom(c, o, stdout) }
	} else if !o.child {
		joined = func(_ context.Context, c *conn) error {
			if n := len(c.sig.Peers()); n >= 2 {
				return fmt.Errorf("pong: room %s is full: %s in it; add -spectate to watch their match", c.room, peersIn(n))
			}
			o.say(stdout, "pong: in room %s on %s; waiting up to %v for an opponent", c.room, netplay.RedactURL(o.signal), o.timeout)
			return nil
		}
	}
	c, err := connect(ctx, o, joined)
	if errors.Is(err, errMatchOver) {
		_ = os.Remove(o.rejoin)
	}
	if err != nil {
		return connectFailed(err, stdout, stderr)
	}
	return runNet(ctx, c, o, stdout, stderr)
}

// runNet plays the match over an open connection.
func runNet(ctx context.Context, c *conn, o options, stdout, stderr io.Writer) int {
	m, err := newNetMatch(ctx, c, o)
	if err != nil {
		c.close()
		fmt.Fprintln(stderr, err)
		return exitFailure
	}
	if o.headless && !o.child {
		m.out = stdout
	}
	status := runLocal(ctx, m, o, stdout, stderr)
	if status != exitFailure {
		// Over (its end, a quit, the opponent gone, a refusal): nothing
		// to come back to. A failure keeps FILE for another try.
		m.removeRejoin()
	}
	return status
}

func (o options) seedOr(room string) uint32 {
	if o.seed != 0 {
		return o.seed
	}
	return seedFor(room)
}

// peersIn says how many peers a room holds, for messages.
func peersIn(n int) string {
	switch n {
	case 0:
		return "nobody is"
	case 1:
		return "one player is"
	case 2:
		return "two players are"
	}
	return fmt.Sprintf("%d peers are", n)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
