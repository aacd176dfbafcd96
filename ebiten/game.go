package rollebiten

import (
	"fmt"

	"github.com/hajimehoshi/ebiten/v2"

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
	// interrupted, rejoining, desynced, ended); HideGraph the network
	// graph (round trip, rollbacks per second, frame advantage).
	// Game.SetOverlay switches them at run time.
	HideStatus, HideGraph bool

	// Frames, when positive, stops the match at that frame: Update makes
	// no more steps, the last state stays on screen, and OnStop runs once
	// (for tests and recordings; a player closes the window).
	Frames rollnet.Frame
	OnStop func(g *Game[S, I])
	// OnUpdate, when set, runs after every Update's step (to record
	// checksums, inputs, or statistics).
	OnUpdate func(g *Game[S, I])
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
		cfg.Match.FrameRate = netplay.DefaultFrameRate
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
	g.view.Seat = -1
	g.ov.init(cfg.Match.FrameRate, !cfg.HideStatus, !cfg.HideGraph)
	return g, nil
}

// Run plays the game in a window (or the browser's canvas) until it is
// closed or the match fails: New, the window, ebiten.RunGame, Close.
func Run[S any, I comparable](cfg Config[S, I]) error {
	g, err := New(cfg)
	if err != nil {
		return err
	}
	defer g.Close()
	ebiten.SetTPS(g.TPS())
	ebiten.SetWindowSize(g.cfg.Width*g.cfg.Scale, g.cfg.Height*g.cfg.Scale)
	if g.cfg.Title != "" {
		ebiten.SetWindowTitle(g.cfg.Title)
	}
	ebiten.SetRunnableOnUnfocused(true) // the match goes on behind another window
	if err := ebiten.RunGame(g); err != nil {
		return err
	}
	return g.err
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

// Close leaves the match.
func (g *Game[S, I]) Close() error { return g.m.Close() }

// Update is ebiten.Game's: it reads the input and advances the match by
// one AdvanceFrame. A fatal match error ends ebiten.RunGame with it.
func (g *Game[S, I]) Update() error {
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
	st, err := g.m.AdvanceFrame(in)
	g.view.Status = st
	if err != nil {
		g.err = err
		return err
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
	return nil
}

// Draw is ebiten.Game's: it fills the View and calls Config.Draw, then
// draws the overlay.
func (g *Game[S, I]) Draw(screen *ebiten.Image) {
	v := g.View()
	g.cfg.Draw(screen, v)
	g.ov.draw(screen, &v.Status)
}

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
