//go:build js && pongweb

// The pong a browser tab plays: game.go and this file, built by -web
// (web.go) as their own program. It joins (or watches) the room in the
// page's URL on the server that served it, as the native pong does, draws
// on the canvas and publishes its numbers in window.pong.

package main

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/netplayhatch"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/webrtc"
)

const webFPS = 60 // the native pong's frame rate (the handshake compares them)

// webOptions are the page URL's query: room, name, bot=1, frames=N,
// delay=F, inject=F (testing: corrupt this tab's state from frame F on).
type webOptions struct {
	room, name            string
	bot                   bool
	frames, delay, inject int
}

func pageOptions() webOptions {
	q, _ := url.ParseQuery(strings.TrimPrefix(js.Global().Get("location").Get("search").String(), "?"))
	num := func(key string, def, lo, hi int) int {
		if n, err := strconv.Atoi(q.Get(key)); err == nil && n >= lo && n <= hi {
			return n
		}
		return def
	}
	return webOptions{room: q.Get("room"), name: cmp.Or(q.Get("name"), "browser"), bot: q.Get("bot") == "1",
		frames: num("frames", 0, 1, math.MaxInt32), delay: num("delay", 2, 0, 10), inject: num("inject", 0, 1, math.MaxInt32)}
}

// page is the document: the canvas, the stats line, and window.pong.
type page struct {
	canvas, ctx, stats, pong js.Value
	keys                     Input
}

var keyBits = map[string]Input{"ArrowUp": InputUp, "w": InputUp, "W": InputUp, "ArrowDown": InputDown, "s": InputDown, "S": InputDown}

func newPage() *page {
	doc := js.Global().Get("document")
	p := &page{canvas: doc.Call("getElementById", "court"), stats: doc.Call("getElementById", "stats"),
		pong: js.Global().Get("pong")} // the page's, with its load time
	if p.pong.Type() != js.TypeObject {
		p.pong = js.Global().Get("Object").New()
		js.Global().Set("pong", p.pong)
	}
	p.ctx = p.canvas.Call("getContext", "2d")
	for event, down := range map[string]bool{"keydown": true, "keyup": false} {
		js.Global().Call("addEventListener", event, js.FuncOf(func(_ js.Value, args []js.Value) any {
			if bit := keyBits[args[0].Get("key").String()]; bit != 0 {
				args[0].Call("preventDefault")
				if p.keys &^= bit; down {
					p.keys |= bit
				}
			}
			return nil
		}))
	}
	return p
}

func (p *page) set(k string, v any) { p.pong.Set(k, v) }

func (p *page) say(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.stats.Set("textContent", msg)
	p.set("status", msg)
}

func (p *page) draw(s *State, side int) {
	w, h := p.canvas.Get("width").Float(), p.canvas.Get("height").Float()
	sx, sy := w/CourtW, h/CourtH
	c := p.ctx
	c.Set("fillStyle", "#000")
	c.Call("fillRect", 0, 0, w, h)
	c.Set("fillStyle", "#444")
	for y := 0.0; y < h; y += 16 {
		c.Call("fillRect", w/2-1, y, 2, 8)
	}
	for i, x := range [2]int32{FaceL - Sub, FaceR} {
		colour := "#888"
		if i == side {
			colour = "#4f4"
		}
		c.Set("fillStyle", colour)
		c.Call("fillRect", float64(x)*sx, float64(s.PaddleY[i])*sy, Sub*sx, PaddleH*sy)
	}
	c.Set("fillStyle", "#fff")
	if s.Winner == 0 && s.Wait == 0 {
		c.Call("fillRect", float64(s.BallX)*sx-Sub*sx/2, float64(s.BallY)*sy-Sub*sy/2, Sub*sx, Sub*sy)
	}
	c.Set("font", "bold 32px monospace")
	c.Set("textAlign", "center")
	c.Call("fillText", fmt.Sprintf("%d   %d", s.Score[0], s.Score[1]), w/2, 36)
}

func main() {
	pg := newPage()
	if err := play(pg, pageOptions()); err != nil {
		pg.set("error", err.Error())
		pg.say("pong: %v", err)
	}
	pg.set("done", true)
}

// play plays the room's match, or watches it once its players play.
func play(pg *page, o webOptions) error {
	pg.say("joining room %s", o.room)
	err := run(pg, o, netplay.Join[State, Input])
	if errors.Is(err, netplay.ErrMatchStarted) || errors.Is(err, netplay.ErrRoomFull) {
		pg.say("room %s: its players play already; watching", o.room)
		err = run(pg, o, netplay.Watch[State, Input])
	}
	return err
}

// run plays (or watches) until the budget, the end or a desync, as netConfig.
func run(pg *page, o webOptions, start func(netplay.Config, func(*State, []Input, rollnet.Frame)) (*netplay.Match[State, Input], error)) error {
	loc := js.Global().Get("location")
	m, err := start(netplay.Config{
		Signal: strings.Replace(loc.Get("protocol").String(), "http", "ws", 1) + "//" + loc.Get("host").String(), // ws: or wss:
		Room:   o.room, Name: o.name, Players: 2, FrameRate: webFPS, Settings: uint64(seedFor(o.room)),
		InputDelay: netplay.DelayBounds{Min: o.delay, Max: o.delay}, Timeout: 2 * time.Minute,
		Tuning: netplay.Tuning{Archive: 10 * 60 * webFPS,
			Net: rollnet.NetConfig{ChecksumInterval: 6, DisconnectTimeout: 5 * time.Second, SyncTimeout: 30 * time.Second, RejoinWindow: 60 * time.Second}},
	}, simulate)
	if err != nil {
		return err
	}
	defer m.Close()
	m.OnSession(func() error {
		*m.State() = NewState(seedFor(o.room))
		pg.set("openMs", js.Global().Get("performance").Call("now").Float())
		pg.set("side", m.Seat())
		return nil
	})
	tick := time.NewTicker(time.Second / webFPS)
	defer tick.Stop()
	var peerEvents []transport.PeerEvent
	var lingerUntil time.Time
	watchers := 0
	for n := 0; ; n++ {
		<-tick.C
		if rtc := netplayhatch.Of[webrtc.Transport](m); rtc != nil {
			peerEvents = rtc.Events(peerEvents[:0])
			for _, e := range peerEvents {
				if e.Kind == transport.PeerGone && e.Err != nil {
					pg.set("peerGone", e.Err.Error())
				}
			}
		}
		in := pg.keys
		if s := m.State(); o.bot && s != nil && m.Seat() >= 0 {
			in = Bot(s, m.Seat())
		}
		done := o.frames > 0 && int(m.Frame()) >= o.frames
		var st netplay.Status
		if done {
			if p := netplayhatch.Of[*p2p.Session[State, Input]](m); p != nil {
				err = p.Poll() // the opponent confirms its last frames
			}
		} else {
			st, err = m.AdvanceFrame(in)
		}
		if err != nil {
			return err
		}
		if o.inject > 0 && m.State() != nil && int(m.Frame()) >= o.inject && m.Seat() >= 0 {
			m.State().Wins[m.Seat()] = 200 // inject=F: this tab only
		}
		for _, e := range m.Events() {
			switch {
			case e.Kind == rollnet.EventDesyncDetected:
				publish(pg, m, st)
				return fmt.Errorf("desync at frame %d", e.Frame)
			case e.Kind == rollnet.EventSynchronized && m.Seat() == 0 && e.Peer != m.Peer(1):
				watchers++
				pg.set("spectators", watchers)
			}
		}
		switch {
		case st.Phase == netplay.Connecting && m.Transport() == nil:
			continue // joining the room
		case st.Phase == netplay.Connecting:
			pg.say("in room %s: waiting for an opponent (%d of %d players)", m.Room(), st.Have, st.Need)
			continue
		case m.State() == nil || st.Phase == netplay.CatchingUp:
			pg.say("%v", st) // a spectator fast-forwarding: not drawn
			continue
		}
		pg.draw(m.State(), m.Seat())
		if done && lingerUntil.IsZero() {
			lingerUntil = time.Now().Add(3 * time.Second) // the native pong's linger
		}
		if n%15 == 0 || done || st.Phase == netplay.Ended {
			publish(pg, m, st)
		}
		switch {
		case st.Phase == netplay.Ended && done:
			return nil
		case st.Phase == netplay.Ended:
			return fmt.Errorf("the match ended at frame %d: %v", m.Frame(), st.Ended)
		case done && time.Now().After(lingerUntil):
			return nil
		}
	}
}

// publish shows netplay's Stats under the canvas and in window.pong.
func publish(pg *page, m *netplay.Match[State, Input], st netplay.Status) {
	s, confirmed := m.Stats(), int(m.Frame())-1
	title := fmt.Sprintf("watching %s (left) vs %s (right)", m.Name(0), m.Name(1))
	if p, side := netplayhatch.Of[*p2p.Session[State, Input]](m), m.Seat(); p != nil {
		confirmed = int(p.ConfirmedFrame())
		title = fmt.Sprintf("%s (you, %s) vs %s", m.Name(side), sideName(side), m.Name(1-side))
	}
	if st.Away != "" {
		title += ", " + st.String()
	}
	rttMs, rttTicks := float64(s.RTT.Microseconds())/1000, s.RTT.Seconds()*webFPS
	for k, v := range map[string]any{"frame": int(m.Frame()), "confirmed": confirmed, "rollbacks": int(s.Rollbacks), "deepest": s.DeepestRollback,
		"compared": int(s.Compared), "agreed": int(s.Agreed), "rttMs": rttMs, "rttTicks": rttTicks, "advantage": st.FrameAdvantage} {
		pg.set(k, v)
	}
	check := "no checksums compared yet"
	if differ := s.Compared - s.Agreed; differ > 0 {
		check = fmt.Sprintf("DESYNC: %d of %d compared frames differ", differ, s.Compared)
	} else if s.Compared > 0 {
		check = fmt.Sprintf("checksums agree (%d frames compared)", s.Compared)
	}
	text := fmt.Sprintf("%s\nframe %d (confirmed %d)  advantage %+d  rollbacks %d (deepest %d)\nround trip: game loop %.1f ms (%.1f ticks)\n%s",
		title, m.Frame(), confirmed, st.FrameAdvantage, s.Rollbacks, s.DeepestRollback, rttMs, rttTicks, check)
	if s.NetworkRTT > 0 {
		ms := float64(s.NetworkRTT.Microseconds()) / 1000
		pg.set("netRttMs", ms)
		text += fmt.Sprintf("\nnetwork round trip %.2f ms (the browser's ICE, %s)", ms, s.Route)
	}
	pg.stats.Set("textContent", text)
}
