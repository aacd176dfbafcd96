package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// match is one side of a game as the loop drives it (offline, replay, netMatch).
type match interface {
	Side() int        // the local player's side (0 left, 1 right), -1 for a spectator
	State() *State    // the state to draw
	Tick(Input) error // the local input for the next frame; advances if the session allows it now; an error ends the match
	HUD() hud         // the live numbers
	Report() report   // the closing report, after the last Tick
	Close() error     // releases the network
}

const hostChecked = "by its clients: every 8th state sent carries the host's checksum" // (a host compares none)

// report is what every process prints at exit.
type report struct {
	Role              string // "left", "right", "spectator", "left, host", ...
	Frames            int32  // frames played
	Ran               int32  // a P2P player's frames simulated in all: past Frames while the others confirmed their last
	Compared, Desyncs int    // checksums compared with the peers (netplay.Stats), and those that disagreed
	First             int32  // the first frame found to differ, when Desyncs > 0
	Desync, Forensics string // netplay's line on the first desync; where the states parted (record.go)
	Rollbacks, Resim  int64  // rollbacks, and the frames they re-simulated
	Deepest           int    // deepest rollback, frames
	OutBPS, InBPS     float64
	Wire              string        // the traffic on the wire a second, headers and acknowledgements included (match.go's wire)
	LoopRTT, NetRTT   time.Duration // through both game loops; the network's own (the transport's), 0 when unknown
	WebRTC            bool          // played over WebRTC (NetRTT is known there)
	Path, Impair      string        // the candidate pair ICE selected and when the channel opened; the -impair line
	Score, Wins       [2]uint8
	News              []string // netplay's story of the match
	Refused           string   // -rejoin: the one line saying the other player refused to take this one back
	Err, Left         string   // why the match ended early (an error); how the others left before its end
	Players           string   // who played whom
	Extra             []string // the mode's own lines, before the score
}

// print writes the report in one write, not interleaved with other processes'.
func (r report) print(out io.Writer) {
	w := &strings.Builder{}
	defer func() { _, _ = io.WriteString(out, w.String()) }()
	if r.Refused != "" {
		fmt.Fprintln(w, r.Refused) // the match was never ours to report
		return
	}
	agree := "checksums agree"
	if r.Desyncs > 0 {
		agree = fmt.Sprintf("DESYNC: %d disagreed, first at frame %d", r.Desyncs, r.First)
	} else if r.Compared == 0 {
		agree = "nothing compared"
	}
	result := "ok"
	switch {
	case r.Err != "":
		result = "FAILED: " + r.Err
	case r.Desyncs > 0:
		result = "FAILED: desync"
	case r.Left != "":
		result = r.Left
	}
	line := func(label, format string, args ...any) {
		fmt.Fprintf(w, "  %-19s %s\n", label, fmt.Sprintf(format, args...))
	}
	fmt.Fprintf(w, "pong report (%s)\n", r.Role)
	line("players", "%s", r.Players)
	if r.Ran > r.Frames {
		line("frames played", "%d (%d simulated: the sides went on until both had confirmed the last one)", r.Frames, r.Ran)
	} else {
		line("frames played", "%d", r.Frames)
	}
	switch {
	case strings.HasSuffix(r.Role, "host"):
		line("states checked", "%s", hostChecked)
	case strings.HasSuffix(r.Role, "client"):
		line("states compared", "%d frames, the host's checksums (%s)", r.Compared, agree)
	default:
		line("confirmed compared", "%d checksums, one every %dth confirmed frame (%s)", r.Compared, checksumInterval, agree)
	}
	for _, kv := range [][2]string{{"desync", r.Desync}, {"desync forensics", r.Forensics}} {
		if kv[1] != "" {
			line(kv[0], "%s", kv[1])
		}
	}
	switch {
	case strings.HasSuffix(r.Role, "host"):
		line("rollbacks", "%d (late inputs rolled back for, %d frames re-simulated)", r.Rollbacks, r.Resim)
	case strings.HasSuffix(r.Role, "client"):
		line("rollbacks", "%d (host states that did not match the prediction, %d frames re-simulated)", r.Rollbacks, r.Resim)
	default:
		line("rollbacks", "%d (deepest %d, %d frames re-simulated)", r.Rollbacks, r.Deepest, r.Resim)
	}
	line("bytes/s", "out %.0f, in %.0f", r.OutBPS, r.InBPS)
	if r.Wire != "" {
		line("on the wire", "%s", r.Wire)
	}
	line("round trip", "game loop %s (a packet waits for each loop's tick)", fmtRTT(r.LoopRTT))
	if r.WebRTC {
		how := "WebRTC ICE"
		if r.Impair != "" {
			how += "; -impair adds its delay above the transport, in the game loop's figure"
		}
		line("", "network %s (%s)", fmtRTT(r.NetRTT), how)
	} else if r.NetRTT > 0 {
		line("", "network %s (the transport's own: QUIC's, or transport/udp's pings)", fmtRTT(r.NetRTT))
	}
	for _, kv := range [][2]string{{"path", r.Path}, {"impairment", r.Impair}} {
		if kv[1] != "" {
			line(kv[0], "%s", kv[1])
		}
	}
	for i, s := range r.News {
		label := "news"
		if i > 0 {
			label = ""
		}
		line(label, "%s", s)
	}
	for _, s := range r.Extra {
		fmt.Fprintf(w, "  %s\n", s)
	}
	line("score", "%d-%d (matches %d-%d)", r.Score[0], r.Score[1], r.Wins[0], r.Wins[1])
	line("result", "%s", result)
}

func fmtRTT(d time.Duration) string {
	if d <= 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

// play runs the loop at o.fps until the budget is spent, the player quits
// or ctx ends (errQuit), or the match fails; v is nil without a terminal.
func play(ctx context.Context, m match, v *view, o options) error {
	tick := time.NewTicker(time.Second / time.Duration(o.fps))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return errQuit
		case <-tick.C:
		}
		side, s := m.Side(), m.State() // an authority client learns its side from the host
		if v != nil {
			v.side = side
			v.poll(s)
		}
		if v != nil && v.quit {
			return errQuit
		}
		var in Input
		switch {
		case side < 0:
		case v != nil && !o.bot:
			in = v.keys.input(s, side)
		default:
			in = Bot(s, side)
		}
		if err := m.Tick(in); err != nil {
			return err
		}
		h := m.HUD()
		if c, ok := m.(interface{ catchingUp() bool }); v != nil && ok && c.catchingUp() {
			v.message(styleHUD, h.Title, fmt.Sprintf("frame %d  %s", h.Frame, h.Progress), "replaying the match without drawing it; q, Esc or Ctrl-C quits")
		} else if v != nil {
			v.draw(m.State(), h)
		}
		if o.frames > 0 && int(h.Frame) >= o.frames {
			return nil
		}
	}
}
