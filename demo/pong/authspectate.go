package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// runAuthSpectate is -spectate in the authority mode: a client of the
// host without a paddle (the third slot, whose input moves nothing), drawn
// wholly from the paced playout. With -signal and -room it joins the
// match in that room; without, it starts both players as processes (the
// left one hosts) and joins once the right one is the host's client: the
// host gives its slots in join order.
func runAuthSpectate(ctx context.Context, o options, stdout, stderr io.Writer) int {
	if o.signal != "" {
		return runPeer(ctx, o, stdout, stderr)
	}
	out := &syncWriter{w: stdout}
	srv, err := hostRoom(&o)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailure
	}
	defer srv.close()
	if o.headless {
		fmt.Fprintf(out, "pong: signaling on %s, room %s; starting two player processes to watch (authority mode)\n", srv.url, o.room)
	}
	// The players' output streams through watch (kept until the end while
	// a screen is up), which sees the right player start.
	var kept *lockedBuffer
	var sink io.Writer = out
	if !o.headless {
		kept = &lockedBuffer{}
		sink = kept
	}
	leftIn, rightIn := make(chan struct{}), make(chan struct{})
	watch := &lineWatch{w: sink, want: map[string]chan struct{}{"[left] pong: in room": leftIn, "[right] pong: match started": rightIn}}
	var players [2]*opponent
	err = func() error {
		// The left player first, which hosts; the right one once it is
		// in the room; this client, the third, once the right one plays.
		var err error
		if players[0], err = startProcess(childArgs(o, 0, 0), watch, true, "[left] "); err != nil {
			return err
		}
		if err := awaitLine(ctx, leftIn, "the left player never joined the room", o.timeout); err != nil {
			return err
		}
		if players[1], err = startProcess(childArgs(o, 1, 0), watch, true, "[right] "); err != nil {
			return err
		}
		return awaitLine(ctx, rightIn, "the right player never joined the host", o.timeout)
	}()
	status := exitFailure
	if err != nil {
		status = connectFailed(err, out, stderr)
	} else {
		status = runNet(ctx, o, out, stderr, nil)
	}
	status = reapPlayers(players[:], o, status, out)
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

// lineWatch passes writes on to w and closes want's channel the first
// time a write holds its text (the players' prefixWriters write whole
// lines).
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

// reapPlayers ends the player processes a spectator started and folds
// their exit statuses into status (see opponent.reap). With a frame budget
// the players end on their own; otherwise they play until we leave:
// closing their stdin ends them now.
func reapPlayers(players []*opponent, o options, status int, out io.Writer) int {
	grace := time.Duration(0)
	if o.frames > 0 {
		grace = 10 * time.Second
	}
	for _, p := range players {
		if p != nil {
			status = p.reap(grace, status, "a player", out)
		}
	}
	return status
}
