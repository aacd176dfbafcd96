package main

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/impair"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// matchLog is what both network matches, a player's (netMatch) and a
// spectator's (spectatorMatch), keep besides their session: the
// connection, the desyncs the session reported, the note for the screen,
// the error that ended the match and the times between which frames
// advanced. Its methods are the parts of HUD, Report and Close that are
// the same for both. The checksum figures are the session's own
// (PeerStats.ChecksumsCompared and ChecksumsAgreed, EventDesyncDetected):
// a game needs nothing of its own to know its peers agree.
type matchLog struct {
	link
	o   options
	now func() time.Time

	desyncs     int    // DesyncDetected events
	desync      string // the first one, for the screen
	firstDesync int32  // its frame, -1 if none
	note        string
	err         error
	start       time.Time // the first frame advanced
	end         time.Time // when Tick stopped advancing (for bytes/s)
	spectators  []string  // spectators' news: joined during the match, refused, failed, left
	out         io.Writer // progress lines, headless on the command line; nil: none
	netRTT      time.Duration
	netRTTAt    time.Time // when netRTT was last asked for
	netRoute    string    // the selected candidate pair, as netRTT was last asked for (webrtc.PeerInfo.Route)
	silentSince time.Time // the opponent (host) is silent since then: NetworkInterrupted, not resumed
	names       [2]string // the players' names by side, "" while unknown (see hello)
	left        string    // how the opponent (host) left, once it did
	line        []byte    // a checksum line being written
	created     time.Time // when the match was made
}

func newMatchLog(o options, now func() time.Time) matchLog {
	return matchLog{o: o, now: now, note: "synchronizing", firstDesync: -1, line: make([]byte, 0, 64), created: now()}
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
func (l *matchLog) desyncDetected(e rollnet.Event, other string) {
	l.desyncs++
	if l.desync == "" {
		l.firstDesync = int32(e.Frame)
		l.desync = fmt.Sprintf("frame %d: local %08x, %s %08x", e.Frame, e.Local, other, e.Remote)
	}
}

// opponentEvent handles the session's events about the opponent (the
// host, for a spectator), who, going silent, coming back and going away
// at frame f: a peer whose session said goodbye (q, Ctrl-C, SIGTERM) quit;
// one that went silent first (SIGKILL, a lost network) vanished and was
// dropped after dropAfter of silence, or sooner if the transport saw it
// go.
func (l *matchLog) opponentEvent(e rollnet.Event, who string, f rollnet.Frame) {
	switch e.Kind {
	case rollnet.EventNetworkInterrupted:
		// Silent since dropAfter before it will be dropped.
		l.silentSince = l.now().Add(e.Timeout - dropAfter)
		l.note = fmt.Sprintf("%s is silent; dropping it in %v", who, e.Timeout.Round(100*time.Millisecond))
	case rollnet.EventNetworkResumed:
		l.silentSince = time.Time{}
		l.note = ""
	case rollnet.EventDisconnected:
		if !l.silentSince.IsZero() {
			l.left = fmt.Sprintf("%s vanished: nothing heard from it for %v, declared disconnected at frame %d",
				who, l.now().Sub(l.silentSince).Round(100*time.Millisecond), f)
		} else {
			l.left = fmt.Sprintf("%s quit at frame %d", who, f)
		}
		l.note = l.left
	}
}

// silence is the note for the screen: while the opponent (host), who, is
// silent and not yet dropped, how long it has been and when it will be
// dropped, counting; else the note.
func (l *matchLog) silence(who string) string {
	if l.silentSince.IsZero() || l.left != "" {
		return l.note
	}
	return fmt.Sprintf("%s has been silent for %.1fs; dropped at %v", who, l.now().Sub(l.silentSince).Seconds(), dropAfter)
}

// leftEarly reports whether the opponent leaving at frame f ended the
// match before its end: a match without a frame budget has no end but a
// player leaving, except for a process this one started, which plays
// until its parent leaves.
func (l *matchLog) leftEarly(f int32) bool {
	if l.o.frames == 0 {
		return !l.o.child
	}
	return int(f) < l.o.frames
}

// hudChecksums sets the HUD's checksum figures from ps (the session's
// counts with the peer) and its desync line from the session's first
// DesyncDetected event.
func (l *matchLog) hudChecksums(h *hud, ps rollnet.PeerStats) {
	h.Compared, h.Agreed = ps.ChecksumsCompared, ps.ChecksumsAgreed
	h.Desync = l.desync
	if h.Desync == "" && h.Agreed < h.Compared {
		h.Desync = "checksums differ" // the event is on its way
	}
}

// fillReport sets the report's checksum figures (ps's counts and the
// first DesyncDetected event's frame) and its bytes per second (ps's
// totals over the time frames advanced).
func (l *matchLog) fillReport(r *report, ps rollnet.PeerStats) {
	r.Compared = int(ps.ChecksumsCompared)
	r.Desyncs = max(int(ps.ChecksumsCompared-ps.ChecksumsAgreed), l.desyncs)
	r.First = l.firstDesync
	r.WebRTC = l.rtc != nil
	end := l.end
	if end.IsZero() {
		end = l.now()
	}
	if d := end.Sub(l.start).Seconds(); !l.start.IsZero() && d > 0 {
		r.OutBPS = float64(ps.BytesSent) / d
		r.InBPS = float64(ps.BytesReceived) / d
	}
}

// noteOpen sets opened once a data channel is open, for a match whose
// joinRoom returned before one was (an authoritative client).
func (l *matchLog) noteOpen() {
	if l.opened != 0 || l.inRoom.IsZero() || l.rtc == nil {
		return
	}
	var open [1]transport.Peer
	if len(l.rtc.Peers(open[:0])) > 0 {
		l.opened = max(time.Since(l.inRoom), time.Millisecond)
	}
}

// networkRTT is the network's own round trip to peer as WebRTC's ICE
// measures it (0 without WebRTC, or until measured), asked for at most
// once a second since asking allocates; the last value is kept once the
// peer is gone.
func (l *matchLog) networkRTT(peer transport.Peer) time.Duration {
	if l.rtc == nil {
		return 0
	}
	now := l.now()
	if !l.netRTTAt.IsZero() && now.Sub(l.netRTTAt) < time.Second {
		return l.netRTT
	}
	l.netRTTAt = now
	if info, err := l.rtc.PeerInfo(peer); err == nil {
		if info.RTT > 0 {
			l.netRTT = info.RTT
		}
		// A reading that does not know the first hop's protocol yet (a
		// relay's RelayProtocol comes from statistics that can lag) does
		// not replace one that did.
		if r := info.Route(); r != "" && (info.Protocol != "" || l.netRoute == "") {
			l.netRoute = r
		}
	}
	return l.netRTT
}

// impairRTT is the round trip -impair adds on this side: its latency out
// and in (the other side may add its own).
func (l *matchLog) impairRTT() time.Duration {
	if l.imp == nil {
		return 0
	}
	return 2 * l.o.impair.Latency
}

// networkPath is the report's path line: the candidate pair ICE selected
// to the peer networkRTT last asked about, and how long after joining the
// room the data channels opened; "" without WebRTC.
func (l *matchLog) networkPath() string {
	if l.rtc == nil {
		return ""
	}
	route := l.netRoute
	if route == "" {
		route = "unknown"
	}
	if l.opened == 0 {
		return route
	}
	return fmt.Sprintf("%s, open %v after joining", route, l.opened.Round(time.Millisecond))
}

// impairNote says what -impair does to this side's link, "" without it.
func (l *matchLog) impairNote() string {
	if l.imp == nil {
		return ""
	}
	st := l.imp.Stats()
	return fmt.Sprintf("%s (lost on purpose: %d received, %d sent)", l.o.impair.label(), st.LostIn, st.LostOut)
}

// nameOf is the name of the player on side, or id's short form while it
// is not known.
func (l *matchLog) nameOf(side int, id transport.Peer) string {
	if n := l.names[side]; n != "" {
		return n
	}
	return short(id)
}

// players is the report's line of who played whom; id is the peer whose
// name may be unknown, on the side other than known.
func (l *matchLog) players(known int, id transport.Peer) string {
	n := [2]string{l.nameOf(known, id), l.nameOf(1-known, id)}
	if known == 1 {
		n[0], n[1] = n[1], n[0]
	}
	return n[0] + " (left) vs " + n[1] + " (right)"
}

// logf writes a progress line to l.out, if any.
func (l *matchLog) logf(format string, args ...any) {
	if l.out != nil {
		fmt.Fprintf(l.out, format+"\n", args...)
	}
}

// printSum writes "pong: checksum frame F X" to l.out, if any, without
// fmt's allocations (it runs every printEvery frames): the process tests
// compare these lines across processes.
func (l *matchLog) printSum(f rollnet.Frame, crc uint32) {
	if l.out == nil {
		return
	}
	b := append(l.line[:0], "pong: checksum frame "...)
	b = strconv.AppendInt(b, int64(f), 10)
	b = append(b, ' ')
	for sh := 28; sh >= 0; sh -= 4 {
		b = append(b, "0123456789abcdef"[crc>>sh&15])
	}
	l.line = append(b, '\n')
	_, _ = l.out.Write(l.line)
}

// link is what a match shows of its connection: the WebRTC transport
// (nil without), the impairment (nil without -impair), when it joined the
// room and how long the channels then took to open (0 when unknown; a
// host's, until its first client joins), the room, and what closes it.
type link struct {
	rtc      *webrtc.Transport
	imp      *impair.Transport
	inRoom   time.Time // when it joined the room (zero when unknown)
	opened   time.Duration
	roomName string
	closer   func()
}

// room is the signaling room's name ("" in tests).
func (l *matchLog) room() string { return l.roomName }

// closed closes the connection, if any, after the session's Close, and
// returns that Close's error.
func (l *matchLog) closed(sessionErr error) error {
	if l.closer != nil {
		l.closer()
	}
	return sessionErr
}
