//go:build js && pongweb

// The pong a browser tab plays: game.go and this file, compiled by -web
// (web.go) with GOOS=js GOARCH=wasm -tags pongweb, as their own program.
// It joins the room named in the page's URL on the signaling server that
// served the page, plays its opponent (a native pong or another tab) over
// transport/webrtc's browser build with the same session settings as the
// native pong, draws on the page's canvas, and publishes its numbers in
// window.pong for the page and for tests.

package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"syscall/js"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
	sigclient "github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// The session settings: the native pong's (p2p.go), which a mismatch of
// the seed would fail at the handshake.
const (
	webFPS       = 60
	webCapacity  = 32
	webChecksums = 6
	webLinger    = 3 * time.Second
	// webSyncTimeout bounds the handshake; the native pong greets its
	// opponent by name for up to 3 s before its session starts (a tab
	// does not: it waits that out).
	webSyncTimeout = 30 * time.Second
	webArchive     = 10 * 60 * webFPS // ten minutes of inputs for late spectators: 72 KB
)

// webOptions are the page URL's query: room, bot=1, frames=N, delay=F,
// and inject=F (testing: this tab's state is corrupted from frame F on, at
// every frame so that no rollback undoes it, to see the desync caught).
type webOptions struct {
	room   string
	bot    bool
	frames int
	delay  int
	inject int
}

func pageOptions() webOptions {
	search := js.Global().Get("location").Get("search").String()
	if len(search) > 0 {
		search = search[1:] // "?"
	}
	q, _ := url.ParseQuery(search)
	o := webOptions{room: q.Get("room"), bot: q.Get("bot") == "1", delay: 2}
	if n, err := strconv.Atoi(q.Get("frames")); err == nil && n > 0 {
		o.frames = n
	}
	if n, err := strconv.Atoi(q.Get("delay")); err == nil && n >= 0 && n <= 10 {
		o.delay = n
	}
	if n, err := strconv.Atoi(q.Get("inject")); err == nil && n > 0 {
		o.inject = n
	}
	return o
}

// page is the document: the canvas, the stats line, and window.pong.
type page struct {
	canvas, ctx, stats, pong js.Value
	keys                     Input
}

func newPage() *page {
	doc := js.Global().Get("document")
	p := &page{
		canvas: doc.Call("getElementById", "court"),
		stats:  doc.Call("getElementById", "stats"),
		pong:   js.Global().Get("pong"), // the page's, with its load time
	}
	if p.pong.Type() != js.TypeObject {
		p.pong = js.Global().Get("Object").New()
		js.Global().Set("pong", p.pong)
	}
	p.ctx = p.canvas.Call("getContext", "2d")
	key := func(down bool) js.Func {
		return js.FuncOf(func(_ js.Value, args []js.Value) any {
			var bit Input
			switch args[0].Get("key").String() {
			case "ArrowUp", "w", "W":
				bit = InputUp
			case "ArrowDown", "s", "S":
				bit = InputDown
			default:
				return nil
			}
			args[0].Call("preventDefault")
			if down {
				p.keys |= bit
			} else {
				p.keys &^= bit
			}
			return nil
		})
	}
	js.Global().Call("addEventListener", "keydown", key(true))
	js.Global().Call("addEventListener", "keyup", key(false))
	return p
}

func (p *page) set(k string, v any) { p.pong.Set(k, v) }

func (p *page) say(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.stats.Set("textContent", msg)
	p.set("status", msg)
}

// draw paints s: the court, the paddles (the local one brighter), the ball
// and the score.
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
		c.Set("fillStyle", "#888")
		if i == side {
			c.Set("fillStyle", "#4f4")
		}
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
	o := pageOptions()
	err := play(pg, o)
	if err != nil {
		pg.set("error", err.Error())
		pg.say("pong: %v", err)
	}
	pg.set("done", true)
}

// now is the page's clock, in milliseconds since the page started loading.
func now() float64 { return js.Global().Get("performance").Call("now").Float() }

func play(pg *page, o webOptions) error {
	loc := js.Global().Get("location")
	scheme := "ws"
	if loc.Get("protocol").String() == "https:" {
		scheme = "wss"
	}
	u := scheme + "://" + loc.Get("host").String() + "/room?next=2"
	if o.room != "" {
		u = scheme + "://" + loc.Get("host").String() + "/room/" + url.PathEscape(o.room)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pg.say("joining %s", u)
	client, err := sigclient.Dial(ctx, u, sigclient.Config{})
	if err != nil {
		return fmt.Errorf("joining %s: %w", u, err)
	}
	sig := webrtc.NewSignalingAdapter(client)
	defer sig.Close()
	tr, err := webrtc.New(webrtc.Config{}, sig)
	if err != nil {
		return err
	}
	defer tr.Close()
	if len(client.Peers()) > 1 { // both players are here: watch the host's match
		host := transport.Peer(client.Peers()[0])
		pg.say("in room %s as %s; connecting to the host %s to watch", client.Room(), client.ID(), host)
		if err := waitFor(ctx, tr, host); err != nil {
			return err
		}
		pg.set("openMs", now())
		pg.set("side", -1)
		return spectate(pg, o, tr, host, seedOf(client.Room()))
	}
	pg.say("in room %s as %s; waiting for an opponent", client.Room(), client.ID())
	peers, err := tr.WaitPeers(ctx, 1)
	if err != nil {
		return fmt.Errorf("no opponent: %w", err)
	}
	side, peer := 0, peers[0]
	if len(client.Peers()) == 1 { // the opponent was here first: it serves left
		side, peer = 1, transport.Peer(client.Peers()[0])
		if err := waitFor(ctx, tr, peer); err != nil {
			return err
		}
	}
	pg.set("openMs", now())
	pg.set("side", side)
	pg.set("peer", string(peer))
	return run(pg, o, tr, peer, side, seedOf(client.Room()))
}

// waitFor waits for peer's data channel to open.
func waitFor(ctx context.Context, tr *webrtc.Transport, peer transport.Peer) error {
	for n := 1; ; n++ {
		peers, err := tr.WaitPeers(ctx, n)
		if err != nil {
			return fmt.Errorf("%s did not connect: %w", peer, err)
		}
		if slices.Contains(peers, peer) {
			return nil
		}
		n = len(peers)
	}
}

// seedOf is main.go's seedFor (FNV-1a of the room name): both players
// serve alike; a different seed fails the handshake's settings check.
func seedOf(room string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(room); i++ {
		h ^= uint32(room[i])
		h *= 16777619
	}
	return h
}

func netConfig(seed uint32) rollnet.NetConfig {
	return rollnet.NetConfig{FrameRate: webFPS, ChecksumInterval: webChecksums, SyncTimeout: webSyncTimeout, Settings: uint64(seed)}
}

// run plays the match on side against peer. The left player is the host:
// peers that connect during the match are its spectators, replaying it
// from frame 0 out of the session's archive (webArchive frames).
func run(pg *page, o webOptions, tr *webrtc.Transport, peer transport.Peer, side int, seed uint32) error {
	remote := []transport.Peer{"", ""}
	remote[1-side] = peer
	archive := 0
	if side == 0 {
		archive = webArchive
	}
	p, err := session.NewP2P[State](session.P2PConfig[Input]{
		Session:          session.Config[Input]{Players: 2, InputDelay: o.delay, Capacity: webCapacity},
		Remote:           remote,
		SpectatorArchive: archive,
		Net:              netConfig(seed),
	}, tr, simulate)
	if err != nil {
		return err
	}
	defer p.Close()
	*p.State() = NewState(seed)
	tick := time.NewTicker(time.Second / webFPS)
	defer tick.Stop()
	var events []rollnet.Event
	var peerEvents []webrtc.PeerEvent
	var desync, gone error
	var lingerUntil time.Time
	watchers := 0
	for n := 0; ; n++ {
		<-tick.C
		peerEvents = tr.Events(peerEvents[:0])
		for _, e := range peerEvents {
			switch {
			case e.Kind == webrtc.PeerGone && e.Peer == peer:
				pg.set("peerGone", e.Err.Error())
			case e.Kind == webrtc.PeerConnected && e.Peer != peer && side == 0 && p.AddSpectator(e.Peer) == nil:
				watchers++
				pg.set("spectators", watchers)
			}
		}
		if p.Running() && p.WaitRecommendation() > 0 || (o.frames > 0 && int(p.Frame()) >= o.frames) {
			err = p.Poll()
		} else {
			in := pg.keys
			if o.bot {
				in = Bot(p.State(), side)
			}
			if err = p.AddLocalInput(side, in); err == nil {
				err = p.AdvanceFrame()
			}
			if o.inject > 0 && int(p.Frame()) >= o.inject {
				p.State().Wins[side] = 200 // inject=F: this tab only
			}
		}
		if err != nil && !errors.Is(err, session.ErrNotSynchronized) && !errors.Is(err, session.ErrPredictionLimit) {
			return err
		}
		events = p.Events(events[:0])
		for _, e := range events {
			if e.Peer != "" && e.Peer != peer {
				continue // about a spectator: never the end of the match
			}
			switch e.Kind {
			case rollnet.EventDesyncDetected:
				desync = fmt.Errorf("desync at frame %d", e.Frame)
			case rollnet.EventDisconnected:
				gone = errors.New("the opponent left")
			case rollnet.EventSyncFailed:
				return fmt.Errorf("handshake failed: %s", e.Reason)
			}
		}
		pg.draw(p.State(), side)
		done := o.frames > 0 && int(p.Frame()) >= o.frames
		if done && lingerUntil.IsZero() {
			lingerUntil = time.Now().Add(webLinger) // the peer confirms its last frames
		}
		if n%15 == 0 || gone != nil || desync != nil || (done && time.Now().After(lingerUntil)) {
			publish(pg, p, tr, peer, side)
		}
		switch {
		case desync != nil:
			return desync
		case gone != nil && done:
			return nil
		case gone != nil:
			return fmt.Errorf("%w at frame %d", gone, p.Frame())
		case done && time.Now().After(lingerUntil):
			return nil
		}
	}
}

// publish shows the terminal's numbers under the canvas and in window.pong.
func publish(pg *page, p *session.P2P[State, Input], tr *webrtc.Transport, peer transport.Peer, side int) {
	st := p.Stats()
	ps, _ := p.PeerStats(peer)
	title := fmt.Sprintf("you (%s) vs %s", [2]string{"left", "right"}[side], peer)
	show(pg, title, int(p.Frame()), int(p.ConfirmedFrame()), ps, int(st.Rollbacks), st.MaxRollbackDepth)
	if info, err := tr.PeerInfo(peer); err == nil && info.RTT > 0 {
		ms := float64(info.RTT.Microseconds()) / 1000
		pg.set("netRttMs", ms)
		pg.stats.Set("textContent", pg.stats.Get("textContent").String()+
			fmt.Sprintf("\nnetwork round trip %.2f ms (the browser's ICE, %s to %s candidate)", ms, info.LocalCandidate, info.RemoteCandidate))
	}
}

func show(pg *page, title string, frame, confirmed int, ps rollnet.PeerStats, rollbacks, deepest int) {
	rttTicks := ps.RTT.Seconds() * webFPS
	for k, v := range map[string]any{
		"frame": frame, "confirmed": confirmed,
		"compared": int(ps.ChecksumsCompared), "agreed": int(ps.ChecksumsAgreed),
		"rttMs": float64(ps.RTT.Microseconds()) / 1000, "rttTicks": rttTicks,
		"rollbacks": rollbacks, "deepest": deepest, "advantage": ps.LocalFrameAdvantage,
	} {
		pg.set(k, v)
	}
	check := "no checksums compared yet"
	if ps.ChecksumsCompared > 0 {
		check = fmt.Sprintf("checksums agree (%d frames compared)", ps.ChecksumsCompared)
		if ps.ChecksumsAgreed != ps.ChecksumsCompared {
			check = fmt.Sprintf("DESYNC: %d of %d compared frames differ", ps.ChecksumsCompared-ps.ChecksumsAgreed, ps.ChecksumsCompared)
		}
	}
	pg.stats.Set("textContent", fmt.Sprintf("%s\nframe %d (confirmed %d)  advantage %+d  rollbacks %d (deepest %d)\nround trip: game loop %.1f ms (%.1f ticks)\n%s",
		title, frame, confirmed, ps.LocalFrameAdvantage, rollbacks, deepest, float64(ps.RTT.Microseconds())/1000, rttTicks, check))
}

// spectate watches host's match from frame 0 until o.frames (or until the
// host leaves), comparing checksums with the host.
func spectate(pg *page, o webOptions, tr transport.Transport, host transport.Peer, seed uint32) error {
	s, err := session.NewSpectator[State](session.SpectatorConfig{
		Players: 2, InputDelay: o.delay, Capacity: webCapacity, Host: host, Net: netConfig(seed),
	}, tr, simulate)
	if err != nil {
		return err
	}
	defer s.Close()
	*s.State() = NewState(seed)
	tick := time.NewTicker(time.Second / webFPS)
	defer tick.Stop()
	var events []rollnet.Event
	title := fmt.Sprintf("watching %s (left) vs right", host)
	for n := 0; ; n++ {
		<-tick.C
		err := s.AdvanceFrame()
		switch {
		case err == nil, errors.Is(err, session.ErrNotSynchronized), errors.Is(err, session.ErrPredictionLimit):
		case errors.Is(err, session.ErrHostGone):
			if o.frames > 0 && int(s.Frame()) < o.frames {
				return fmt.Errorf("the host left at frame %d", s.Frame())
			}
			return nil
		default:
			return err
		}
		events = s.Events(events[:0])
		for _, e := range events {
			if e.Kind == rollnet.EventDesyncDetected {
				show(pg, title, int(s.Frame()), int(s.Frame())-1, s.PeerStats(), 0, 0)
				return fmt.Errorf("desync at frame %d", e.Frame)
			}
		}
		if s.CatchingUp() {
			// Fast-forwarding the match in bulk: the frames fly by
			// undrawn, the count of those to go is shown instead.
			if n%4 == 0 {
				show(pg, fmt.Sprintf("%s: catching up, %d frames to go", title, s.Behind()), int(s.Frame()), int(s.Frame())-1, s.PeerStats(), 0, 0)
			}
			continue
		}
		pg.draw(s.State(), -1)
		done := o.frames > 0 && int(s.Frame()) >= o.frames
		if n%15 == 0 || done {
			show(pg, title, int(s.Frame()), int(s.Frame())-1, s.PeerStats(), 0, 0)
		}
		if done {
			return nil
		}
	}
}
