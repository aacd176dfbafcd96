package main

import (
	"fmt"
	"time"

	"github.com/rollnet/rollnet/session"
)

// matchLog is what both network matches, a player's (netMatch) and a
// spectator's (spectatorMatch), keep besides their session: the
// connection, the checksum audit, the desyncs the session reported, the
// note for the screen, the error that ended the match and the times
// between which frames advanced. Its methods are the parts of HUD, Report
// and Close that are the same for both.
type matchLog struct {
	c     *conn // nil in tests
	audit *audit
	o     options
	now   func() time.Time

	events      []session.Event
	desyncs     int    // DesyncDetected events
	desync      string // the first one, for the screen
	firstDesync int32  // its frame, -1 if none
	note        string
	err         error
	start       time.Time // the first frame advanced
	end         time.Time // when Tick stopped advancing (for bytes/s)
}

func newMatchLog(a *audit, o options, now func() time.Time) matchLog {
	return matchLog{audit: a, o: o, now: now, note: "synchronizing", firstDesync: -1}
}

// advanced notes that a frame was advanced: the first one starts the clock
// of the bytes-per-second figures. It reports whether this was the first.
func (l *matchLog) advanced() bool {
	if !l.start.IsZero() {
		return false
	}
	l.start = l.now()
	return true
}

// desyncDetected counts a DesyncDetected event e, keeping the first for
// the screen; other names the side whose checksum differed ("remote",
// "host").
func (l *matchLog) desyncDetected(e session.Event, other string) {
	l.desyncs++
	if l.desync == "" {
		l.firstDesync = int32(e.Frame)
		l.desync = fmt.Sprintf("frame %d: local %08x, %s %08x", e.Frame, e.Local, other, e.Remote)
	}
}

// hudDesync is the HUD's desync line: the session's first report, else the
// audit's, else empty.
func (l *matchLog) hudDesync() string {
	if l.desync != "" {
		return l.desync
	}
	if _, bad, first, _ := l.audit.result(); bad > 0 {
		return fmt.Sprintf("checksums differ from frame %d", first)
	}
	return ""
}

// fillReport sets the report's checksum figures (from the audit and the
// session's desync events, whichever saw a difference first) and its bytes
// per second (ps's totals over the time frames advanced).
func (l *matchLog) fillReport(r *report, ps session.PeerStats) {
	compared, bad, first, _ := l.audit.result()
	r.Compared, r.Desyncs, r.First = compared, max(bad, l.desyncs), first
	if l.firstDesync >= 0 && (first < 0 || l.firstDesync < first) {
		r.First = l.firstDesync
	}
	end := l.end
	if end.IsZero() {
		end = l.now()
	}
	if d := end.Sub(l.start).Seconds(); !l.start.IsZero() && d > 0 {
		r.OutBPS = float64(ps.BytesSent) / d
		r.InBPS = float64(ps.BytesReceived) / d
	}
}

// closed closes the connection, if any, after the session's Close, and
// returns that Close's error.
func (l *matchLog) closed(sessionErr error) error {
	if l.c != nil {
		l.c.close()
	}
	return sessionErr
}
