package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// Report is what -report writes when the game stops at -frames.
type Report struct {
	Frames  int
	LagComp bool
	// Seen is the window player's shots that hit what it drew; Confirmed
	// its hits as the host judged them; Shots the shots the host saw.
	Seen, Confirmed, Shots int32
	Players                int
	// The host's counts of its players' sights: older than the bound,
	// naming states never sent, jumping.
	TooOld, TooNew, Jumps uint64
}

// tick is the step: the host's and every client's, 60 Hz.
const tick = time.Second / 60

// Room is the host, the window's client and the bots' clients, over an
// in-memory network of 50 ± 10 ms each way and 2% loss. Its time is the
// game's ticks (a tick a sixtieth of a second, however late the machine
// runs them), so a busy machine plays the same match as a quiet one.
type Room struct {
	clock   *local.Clock
	host    *netplay.Match[World, Shot]
	you     *netplay.Match[World, Shot]
	bots    []*netplay.Match[World, Shot]
	bot     []*Bot
	botSelf *Bot // the window's player, with -bot
	seen    int32
	aim     Shot // the window player's newest shot, drawn a while
	aimAge  int
	frames  int
	stopAt  int
	shot    string
	report  string
	done    bool
	lagcomp bool
}

// NewRoom makes a room of players (the window's and players-1 bots').
func NewRoom(players int, lagcomp bool) (*Room, error) {
	clock := local.NewClock(time.Now())
	nw, err := local.NewNetwork(local.Config{Seed: uint64(time.Now().UnixNano()), Now: clock.Now,
		Link: local.Link{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}, QueueLen: 1024})
	if err != nil {
		return nil, err
	}
	hep, err := nw.Endpoint("host")
	if err != nil {
		return nil, err
	}
	r := &Room{clock: clock, lagcomp: lagcomp}
	// netplay's LagComp: the host judges each shot with Simulate's
	// sights, the clients stamp their inputs with what they drew.
	lc := netplay.LagComp(0, Simulate)
	if r.host, err = netplay.Host(netplay.Config{Transport: hep, Now: clock.Now, Players: players, Name: "host"}, nil, lc); err != nil {
		return nil, err
	}
	r.host.OnSession(func() error { *r.host.State() = NewWorld(lagcomp); return nil })
	client := func(name string) (*netplay.Match[World, Shot], error) {
		ep, err := nw.Endpoint(name)
		if err != nil {
			return nil, err
		}
		return netplay.Connect(netplay.Config{Transport: ep, Now: clock.Now, Players: players, Name: name, Peers: []transport.Peer{"host"}}, nil, lc)
	}
	if r.you, err = client("you"); err != nil {
		return nil, err
	}
	for i := 1; i < players; i++ {
		c, err := client(fmt.Sprint("bot", i))
		if err != nil {
			return nil, err
		}
		r.bots = append(r.bots, c)
		r.bot = append(r.bot, &Bot{every: 17 + 3*i, phase: i})
	}
	return r, nil
}

// Update is one tick of the host, the window's player and the bots.
func (r *Room) Update() error {
	if r.done {
		return ebiten.Termination
	}
	r.clock.Advance(tick)
	if _, err := r.host.AdvanceFrame(Shot{}); err != nil {
		return err
	}
	for i, c := range r.bots {
		if _, err := c.AdvanceFrame(r.bot[i].Shot(c)); err != nil {
			return err
		}
	}
	var in Shot
	if r.botSelf != nil {
		in = r.botSelf.Shot(r.you)
	} else if ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft) {
		x, y := ebiten.CursorPosition()
		in = Shot{X: int16(x), Y: int16(y), Fire: 1}
	}
	r.aimAge++
	if in.Fire == 1 {
		r.aim, r.aimAge = in, 0
		if hitsDrawn(r.you, in) {
			r.seen++
		}
	}
	if _, err := r.you.AdvanceFrame(in); err != nil {
		return err
	}
	r.frames++
	return nil
}

// hitsDrawn says a shot hits a target where client c draws it.
func hitsDrawn(c *netplay.Match[World, Shot], s Shot) bool {
	a, b, alpha, ok := c.Playout()
	if !ok {
		return false
	}
	for i := range a.T {
		x, y := Seen(a, b, alpha, i)
		if dx, dy := int32(s.X)-x, int32(s.Y)-y; dx*dx+dy*dy <= Radius*Radius {
			return true
		}
	}
	return false
}

// Bot aims where it sees a target, every so many frames.
type Bot struct{ every, phase, n int }

// Shot is the bot's input this frame.
func (b *Bot) Shot(c *netplay.Match[World, Shot]) Shot {
	b.n++
	from, to, alpha, ok := c.Playout()
	if !ok || (b.n+b.phase)%b.every != 0 {
		return Shot{}
	}
	x, y := Seen(from, to, alpha, (b.n/b.every+b.phase)%Targets)
	return Shot{X: int16(x), Y: int16(y), Fire: 1}
}

// Layout is the world's size.
func (r *Room) Layout(int, int) (int, int) { return Width, Height }

func main() {
	players := flag.Int("players", 4, "players, 2 to 8: the window's and bots'")
	lagcomp := flag.Bool("lagcomp", true, "judge each shot where its player saw the targets (false: at the host's present)")
	bot := flag.Bool("bot", false, "the window's player aims by itself")
	frames := flag.Int("frames", 0, "stop after this many frames, write -shot and -report, and exit")
	shot := flag.String("shot", "", "with -frames: write a PNG of the window there")
	report := flag.String("report", "", "with -frames: write a JSON report there (- for stdout)")
	flag.Parse()
	if *players < 2 || *players > MaxPlayers {
		fmt.Fprintf(os.Stderr, "shooter: -players %d: 2 to %d\n", *players, MaxPlayers)
		os.Exit(2)
	}
	r, err := NewRoom(*players, *lagcomp)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shooter:", err)
		os.Exit(1)
	}
	if *bot {
		r.botSelf = &Bot{every: 15}
	}
	r.stopAt, r.shot, r.report = *frames, *shot, *report
	ebiten.SetWindowSize(Width, Height)
	ebiten.SetWindowTitle("shooter")
	ebiten.SetTPS(60)
	if err := ebiten.RunGame(r); err != nil && !errors.Is(err, ebiten.Termination) {
		fmt.Fprintln(os.Stderr, "shooter:", err)
		os.Exit(1)
	}
}

// finish writes the report and the screenshot at -frames.
func (r *Room) finish(screen *ebiten.Image) {
	r.done = true
	slot := max(r.you.Seat(), 0)
	w := r.host.State()
	rep := Report{Frames: r.frames, LagComp: r.lagcomp, Seen: r.seen, Confirmed: w.Hits[slot], Shots: w.Shots[slot], Players: len(r.bots) + 1}
	st := r.host.Stats()
	rep.TooOld, rep.TooNew, rep.Jumps = st.SightsTooOld, st.SightsTooNew, st.SightJumps
	if r.shot != "" {
		if err := writePNG(r.shot, screen); err != nil {
			fmt.Fprintln(os.Stderr, "shooter:", err)
		}
	}
	if r.report == "" {
		return
	}
	b, _ := json.Marshal(rep)
	if r.report == "-" {
		fmt.Println("report " + string(b))
	} else if err := os.WriteFile(r.report, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "shooter:", err)
	}
}

func writePNG(path string, screen *ebiten.Image) error {
	img := image.NewRGBA(screen.Bounds())
	screen.ReadPixels(img.Pix)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
