package rollebiten

import (
	"cmp"
	"errors"
	"fmt"
	"image"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/netplay"
)

// Config is a game for Ebitengine on a rollnet match. Simulate and Draw
// are required; the zero value of every other field means its default.
type Config[S any, I comparable] struct {
	// Match says where the match is and what it plays (netplay.Config);
	// its FrameRate is the game's TPS.
	Match netplay.Config
	// Mode is this process's part: netplay.ModeP2P (the default),
	// ModeSpectator, ModeHost or ModeClient.
	Mode netplay.Mode
	// Entities, for ModeHost and ModeClient, plays the match in the
	// entity mode (netplay.EntityConfig): the host sends each client the
	// entities relevant to it. A client's View then holds one world: its
	// own entity predicted, the others at the render time.
	Entities *netplay.EntityConfig[S, I]

	// Simulate advances the state by one frame from every player's input.
	// It must be deterministic (netplay.Join's contract).
	Simulate func(s *S, inputs []I, frame rollnet.Frame)
	// Init, when set, sets the state before frame 0 (the zero S before
	// it): once the session exists, before its first frame, on every
	// peer and again on a player who rejoins. Like Simulate it must be
	// deterministic, so that every peer starts from the same state.
	Init func(s *S)
	// Input reads this player's input once per Update (KeyMap.Reader, or
	// the game's own); nil sends the zero input.
	Input func() I
	// Draw draws the match: see View for which state to draw what from.
	Draw func(screen *ebiten.Image, v *View[S])

	// Width and Height are the game's screen in pixels (0 means 320×240),
	// Scale the window's size in screen pixels (0 means 2), Title the
	// window's title (Run).
	Width, Height, Scale int
	Title                string

	// HideStatus hides the status overlay (connecting, waiting for whom,
	// interrupted, rejoining, desynced, repaired, ended); HideGraph the network
	// graph (round trip, rollbacks per second, frame advantage).
	// Game.SetOverlay switches them at run time.
	HideStatus, HideGraph bool
	// StatusBox places the status overlay: its text wraps to the box's
	// width from its top left corner, on a shade as tall as the text.
	// The zero Rectangle means the top of the screen, its full width.
	// GraphBox places the network graph's bars (one pixel a tick, the
	// newest at the right, three rows: round trip, rollbacks per second,
	// frame advantage; each row's figure is written to the left of the
	// box). The zero Rectangle means the bottom right corner, 120×42.
	// Game.PlaceOverlay moves them at run time; Game.Figures hands the
	// graph's figures to a game that draws its own HUD instead.
	StatusBox, GraphBox image.Rectangle

	// Frames, when positive, stops the match at that frame: Update makes
	// no more steps, the last state stays on screen, and OnStop runs once
	// (for tests and recordings; a player closes the window). OnStop may
	// call Game.Quit to leave the match and end the game there.
	Frames rollnet.Frame
	OnStop func(g *Game[S, I])
	// OnUpdate, when set, runs after every Update's step (to record
	// checksums, inputs, or statistics).
	OnUpdate func(g *Game[S, I])

	// KeepWaiting keeps a player alone in its room waiting past
	// Match.Timeout without asking. By default, when no one joined
	// within it, the overlay asks (W keeps waiting, Esc quits) and the
	// match waits on meanwhile; Esc ends the game with netplay's
	// ErrTimeout. A timeout reaching the signaling server still ends it.
	KeepWaiting bool
}

// View is what Draw is given each frame.
//
// In P2P, for a spectator and for a host, Present, A and B are the same
// state and Alpha 0: draw it as is. For an authoritative client, Present
// is its predicted present: draw what this player controls (Seat) from
// it; A and B are the host's states around the render time, and what the
// others control is drawn at A + Alpha×(B−A) (see Lerp). Before the
// first state, Present is nil (the overlay says why): draw a background.
//
// In the entity mode (Config.Entities), a client's Present, A and B are
// the same world and Alpha 0: its own entity is predicted, the others
// already decoded at the render time. Draw it as is.
type View[S any] struct {
	Present, A, B *S
	Alpha         float64
	Seat          int // this player's seat or first slot, -1 for none
	Status        netplay.Status
}

// Lerp is a + alpha×(b−a), for drawing a playout's integer positions.
func Lerp[N ~int8 | ~int16 | ~int32 | ~int64 | ~int](a, b N, alpha float64) float64 {
	return float64(a) + alpha*float64(b-a)
}

// Game is an ebiten.Game playing a rollnet match: one AdvanceFrame per
// Update at TPS = the match's frame rate. Its methods are for
// Ebitengine's goroutine.
type Game[S any, I comparable] struct {
	cfg     Config[S, I]
	m       *netplay.Match[S, I]
	view    View[S]
	err     error
	stopped bool
	ov      overlay

	asking  error // the lobby's timeout, while the overlay asks whether to keep waiting
	askLine string

	quit     bool
	closeErr error
	sig      chan os.Signal // Run's: SIGINT or SIGTERM quits
	signaled bool
}

// New starts the match (in the background: the overlay shows its
// progress) and returns the game to hand to ebiten.RunGame, after
// ebiten.SetTPS(g.TPS()). Run does both.
func New[S any, I comparable](cfg Config[S, I]) (*Game[S, I], error) {
	if cfg.Simulate == nil || cfg.Draw == nil {
		return nil, fmt.Errorf("%w: Simulate and Draw are required", ErrConfig)
	}
	if cfg.Width < 0 || cfg.Height < 0 || cfg.Scale < 0 {
		return nil, fmt.Errorf("%w: Width %d, Height %d, Scale %d", ErrConfig, cfg.Width, cfg.Height, cfg.Scale)
	}
	if cfg.Width == 0 {
		cfg.Width = 320
	}
	if cfg.Height == 0 {
		cfg.Height = 240
	}
	if cfg.Scale == 0 {
		cfg.Scale = 2
	}
	if cfg.Match.FrameRate == 0 {
		cfg.Match.FrameRate = 60 // netplay.Config.FrameRate's default
	}
	var m *netplay.Match[S, I]
	var err error
	var opts []netplay.Option[S, I]
	if cfg.Entities != nil {
		if cfg.Mode != netplay.ModeHost && cfg.Mode != netplay.ModeClient {
			return nil, fmt.Errorf("%w: Entities is for ModeHost and ModeClient", ErrConfig)
		}
		opts = append(opts, netplay.Entities(*cfg.Entities))
	}
	switch cfg.Mode {
	case 0, netplay.ModeP2P:
		cfg.Mode = netplay.ModeP2P
		m, err = netplay.Join[S, I](cfg.Match, cfg.Simulate)
	case netplay.ModeSpectator:
		m, err = netplay.Watch[S, I](cfg.Match, cfg.Simulate)
	case netplay.ModeHost:
		m, err = netplay.Host[S, I](cfg.Match, cfg.Simulate, opts...)
	case netplay.ModeClient:
		m, err = netplay.Connect[S, I](cfg.Match, cfg.Simulate, opts...)
	default:
		return nil, fmt.Errorf("%w: Mode %d", ErrConfig, cfg.Mode)
	}
	if err != nil {
		return nil, err
	}
	g := &Game[S, I]{cfg: cfg, m: m}
	if cfg.Init != nil {
		m.OnSession(func() error {
			cfg.Init(m.State())
			return nil
		})
	}
	g.view.Seat = -1
	g.ov.init(cfg.Match.FrameRate, !cfg.HideStatus, !cfg.HideGraph)
	g.ov.place(cfg.StatusBox, cfg.GraphBox)
	return g, nil
}

// Run plays the game in a window (or the browser's canvas) until it is
// closed, the game calls Quit, the process is interrupted (SIGINT, as
// Ctrl-C in a terminal, or SIGTERM) or the match fails: New, the window,
// ebiten.RunGame, Close. Whichever way the player leaves, the match is
// closed, so the others see this player quit (not go away). It returns
// nil when the window was closed or the game quit, ErrInterrupted after
// a signal, and the match's error when it failed.
func Run[S any, I comparable](cfg Config[S, I]) error {
	g, err := New(cfg)
	if err != nil {
		return err
	}
	defer g.Close()
	g.sig = make(chan os.Signal, 1)
	signal.Notify(g.sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(g.sig)
	ebiten.SetTPS(g.TPS())
	ebiten.SetWindowSize(g.cfg.Width*g.cfg.Scale, g.cfg.Height*g.cfg.Scale)
	if g.cfg.Title != "" {
		ebiten.SetWindowTitle(g.cfg.Title)
	}
	ebiten.SetRunnableOnUnfocused(true) // the match goes on behind another window
	if err := ebiten.RunGame(g); err != nil {
		return err
	}
	if g.err != nil {
		return g.err
	}
	if g.signaled {
		return ErrInterrupted
	}
	return g.closeErr
}

// TPS is the game's ticks per second: the match's frame rate.
func (g *Game[S, I]) TPS() int { return g.cfg.Match.FrameRate }

// Match is the match underneath (names, checksums, Send, the session).
func (g *Game[S, I]) Match() *netplay.Match[S, I] { return g.m }

// Status is the match's status after the last Update.
func (g *Game[S, I]) Status() netplay.Status { return g.view.Status }

// Stopped reports whether Config.Frames was reached.
func (g *Game[S, I]) Stopped() bool { return g.stopped }

// SetOverlay shows or hides the status overlay and the network graph.
func (g *Game[S, I]) SetOverlay(status, graph bool) { g.ov.status, g.ov.graph = status, graph }

// PlaceOverlay moves the status overlay and the network graph (see
// Config.StatusBox and GraphBox; a zero Rectangle means its default).
func (g *Game[S, I]) PlaceOverlay(status, graph image.Rectangle) { g.ov.place(status, graph) }

// Figures is what the network graph shows for one tick, for a game that
// draws them in its own HUD (with Config.HideGraph).
type Figures struct {
	RTT                time.Duration // the round trip the session measures
	RollbacksPerSecond int           // rollbacks in the second up to this tick
	FrameAdvantage     int           // frames ahead of the peer furthest behind (P2P)
}

// Figures is the network graph's figures at the i-th newest tick (0: the
// last Update's), and false when there is no such tick (before the first
// Update, or i at least 120, the ticks the graph keeps).
func (g *Game[S, I]) Figures(i int) (Figures, bool) {
	if i < 0 || i >= graphLen {
		return Figures{}, false
	}
	s, ok := g.ov.at(i)
	if !ok {
		return Figures{}, false
	}
	return Figures{
		RTT:                time.Duration(s.rtt) * time.Millisecond,
		RollbacksPerSecond: int(g.ov.perSecond(i)),
		FrameAdvantage:     int(s.advantage),
	}, true
}

// Close leaves the match (the others see this player quit). Run calls
// it; a game that calls New calls it when it is done.
func (g *Game[S, I]) Close() error { return g.m.Close() }

// Quit leaves the match, as Close does (the others see this player quit,
// not go away), and ends the game: the next Update returns
// ebiten.Termination, so ebiten.RunGame and Run return nil. Call it from
// the game's goroutine (Update, Draw, Input, OnUpdate, OnStop); it is
// safe to call more than once.
func (g *Game[S, I]) Quit() {
	if g.quit {
		return
	}
	g.quit = true
	g.closeErr = g.m.Close()
}

// Quitting reports whether Quit was called (or Run's signal arrived).
func (g *Game[S, I]) Quitting() bool { return g.quit }

// Update is ebiten.Game's: it reads the input and advances the match by
// one AdvanceFrame. A fatal match error ends ebiten.RunGame with it;
// after Quit it returns ebiten.Termination.
func (g *Game[S, I]) Update() error {
	select {
	case <-g.sig: // nil outside Run: never ready
		g.signaled = true
		g.Quit()
	default:
	}
	if g.quit {
		return ebiten.Termination
	}
	var in I
	if g.cfg.Input != nil && !g.stopped {
		in = g.cfg.Input()
	}
	return g.step(in)
}

// step is Update after reading the input.
func (g *Game[S, I]) step(in I) error {
	if g.err != nil {
		return g.err
	}
	if g.stopped {
		return nil
	}
	if g.asking != nil {
		switch {
		case keyPressed(ebiten.KeyEscape):
			g.err = g.asking
			return g.err
		case keyPressed(ebiten.KeyW):
			g.asking = nil
		}
	}
	st, err := g.m.AdvanceFrame(in)
	g.view.Status = st
	if errors.Is(err, netplay.ErrTimeout) && st.Phase == netplay.Connecting && err != g.asking { // no one joined in time: the next call waits on
		if !g.cfg.KeepWaiting {
			g.asking = err
			g.askLine = fmt.Sprintf("no one joined in %v: press W to keep waiting, Esc to quit", cmp.Or(g.cfg.Match.Timeout, 30*time.Second))
		}
		return nil
	}
	if err != nil {
		g.err = err
		return err
	}
	if st.Phase != netplay.Connecting {
		g.asking = nil // someone came while the overlay asked
	}
	g.ov.sample(&st)
	if g.cfg.OnUpdate != nil {
		g.cfg.OnUpdate(g)
	}
	if g.cfg.Frames > 0 && st.Frame >= g.cfg.Frames {
		g.stopped = true
		if g.cfg.OnStop != nil {
			g.cfg.OnStop(g)
		}
	}
	if g.quit {
		return ebiten.Termination
	}
	return nil
}

// Draw is ebiten.Game's: it fills the View and calls Config.Draw, then
// draws the overlay.
func (g *Game[S, I]) Draw(screen *ebiten.Image) {
	v := g.View()
	g.cfg.Draw(screen, v)
	g.ov.draw(screen, &v.Status)
	if g.asking != nil { // a question, drawn even with HideStatus
		g.ov.drawLines(screen, g.askLine)
	}
}

// Asking reports whether the overlay asks whether to keep waiting (no
// one joined within Match.Timeout; see Config.KeepWaiting).
func (g *Game[S, I]) Asking() bool { return g.asking != nil }

// keyPressed is inpututil.IsKeyJustPressed (the tests press keys here).
var keyPressed = inpututil.IsKeyJustPressed

// View is what Draw is given, as of now (valid until the next Update).
func (g *Game[S, I]) View() *View[S] {
	v := &g.view
	v.Seat = g.m.Seat()
	v.Present = g.m.State()
	v.A, v.B, v.Alpha = v.Present, v.Present, 0
	if g.cfg.Mode == netplay.ModeClient {
		if a, b, alpha, ok := g.m.Playout(); ok {
			v.A, v.B, v.Alpha = a, b, alpha
		}
	}
	return v
}

// Layout is ebiten.Game's: the game's screen is Config.Width×Height.
func (g *Game[S, I]) Layout(int, int) (int, int) { return g.cfg.Width, g.cfg.Height }
