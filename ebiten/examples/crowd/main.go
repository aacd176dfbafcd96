package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"

	"github.com/rollnet/rollnet"
	rollebiten "github.com/rollnet/rollnet/ebiten"
	"github.com/rollnet/rollnet/netplay"
)

var keys = rollebiten.KeyMap[Buttons]{
	{Bits: Up, Keys: []ebiten.Key{ebiten.KeyArrowUp, ebiten.KeyW}},
	{Bits: Down, Keys: []ebiten.Key{ebiten.KeyArrowDown, ebiten.KeyS}},
	{Bits: Left, Keys: []ebiten.Key{ebiten.KeyArrowLeft, ebiten.KeyA}},
	{Bits: Right, Keys: []ebiten.Key{ebiten.KeyArrowRight, ebiten.KeyD}},
}

// Report is what -report writes when the match stops at -frames.
type Report struct {
	Seat  int
	Frame rollnet.Frame
	// Held is the entities this client holds (its own avatar aside),
	// Far those of them beyond Sight+40 pixels of its avatar.
	Held, Far int
	// Missed is, in the default mode, the entities the host has within
	// Sight−40 pixels of this client's avatar that the client does not
	// hold (-1 when the host is in another process).
	Missed           int
	Ticks            int // this process's ticks
	Compared, Agreed uint64
	Corrections      uint64
	// InputLead is how many of this client's inputs wait on the host
	// when it needs one (the host's advice), TimeScale the rate its
	// ticks run at to hold that lead (netplay.Stats).
	InputLead, TimeScale float64
	Rebuilds             uint64
	ReceivedPerSecond    float64 // bytes a second from the host
	Bots                 int     // bots still playing
}

func main() {
	mode := flag.String("mode", "local", "local (a host and -bots bots in this process, the window one more player), host or client")
	bots := flag.Int("bots", 31, "with -mode local: the bots in the room")
	players := flag.Int("players", MaxPlayers, "with -mode host: the slots")
	signal := flag.String("signal", "ws://127.0.0.1:8080", "with -mode host or client: the signaling server (rollnet-signal)")
	room := flag.String("room", "crowd", "with -mode host or client: the room")
	name := flag.String("name", "", "your name")
	bot := flag.Bool("bot", false, "play by itself")
	frames := flag.Int("frames", 0, "stop at this frame, write -report and -shot, and exit")
	report := flag.String("report", "", "with -frames: write a JSON report there (- for stdout)")
	shot := flag.String("shot", "", "with -frames: write a PNG of the window there")
	flag.Parse()
	if err := run(*mode, *bots, *players, *signal, *room, *name, *bot, *frames, *report, *shot); err != nil {
		if errors.Is(err, rollebiten.ErrInterrupted) {
			return
		}
		fmt.Fprintln(os.Stderr, "crowd:", err)
		os.Exit(1)
	}
}

func run(mode string, bots, players int, signal, roomName, name string, bot bool, frames int, report, shot string) error {
	cfg := rollebiten.Config[World, Buttons]{
		Match:    netplay.Config{Signal: signal, Room: roomName, Name: name, Players: players},
		Mode:     netplay.ModeClient,
		Entities: Entities(),
		Simulate: Simulate, Input: keys.Reader(), Draw: Draw, Title: "crowd",
		Width: Width, Height: Height, Scale: 1,
		Frames: rollnet.Frame(frames),
	}
	var r *Room
	switch mode {
	case "local":
		if bots < 0 || bots+1 > MaxPlayers {
			return fmt.Errorf("-bots %d: 0 to %d", bots, MaxPlayers-1)
		}
		var err error
		if r, err = NewRoom(bots+1, bots, nil); err != nil {
			return err
		}
		defer r.Close()
		ep, err := r.Net.Endpoint("you")
		if err != nil {
			return err
		}
		cfg.Match = r.ClientConfig(ep, "you", nil)
	case "host":
		if players < 1 || players > MaxPlayers {
			return fmt.Errorf("-players %d: 1 to %d", players, MaxPlayers)
		}
		cfg.Mode = netplay.ModeHost
	case "client":
	default:
		return fmt.Errorf("-mode %q: local, host or client", mode)
	}
	if bot {
		cfg.Input = NewBot(uint32(time.Now().UnixNano())).Input
	}
	var roomErr error
	ticks := 0
	var playing *netplay.Match[World, Buttons]
	cfg.OnUpdate = func(g *rollebiten.Game[World, Buttons]) {
		ticks++
		playing = g.Match()
		if r != nil && roomErr == nil {
			if roomErr = r.Tick(); roomErr != nil {
				fmt.Fprintln(os.Stderr, "crowd: the room:", roomErr)
			}
		}
	}
	started := time.Now()
	stopped := false
	var game *rollebiten.Game[World, Buttons]
	cfg.OnStop = func(g *rollebiten.Game[World, Buttons]) {
		stopped, game = true, g
		var host *World
		if r != nil {
			host = r.Host.State()
		}
		rep := Measure(g.Match(), host)
		rep.Ticks = ticks
		if r != nil {
			for _, b := range r.Bots {
				if b.Seat() >= 0 {
					rep.Bots++
				}
			}
		}
		rep.ReceivedPerSecond = float64(g.Match().Stats().BytesReceived) / time.Since(started).Seconds()
		if report == "" {
			return
		}
		b, _ := json.Marshal(rep)
		if report == "-" {
			fmt.Println("report " + string(b))
		} else if err := os.WriteFile(report, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "crowd:", err)
		}
	}
	draw := cfg.Draw
	cfg.Draw = func(screen *ebiten.Image, v *rollebiten.View[World]) {
		draw(screen, v)
		if playing != nil {
			ebitenutil.DebugPrintAt(screen, Predictions(playing.Stats()), 8, Height-36)
		}
		if !stopped || game == nil || game.Quitting() {
			return
		}
		if shot != "" {
			if err := writePNG(shot, screen); err != nil {
				fmt.Fprintln(os.Stderr, "crowd:", err)
			}
		}
		game.Quit()
	}
	if err := rollebiten.Run(cfg); err != nil {
		return err
	}
	return roomErr
}

// Measure is the report of client m, and of what it misses of host (the
// host's world, nil when it is in another process).
func Measure(m *netplay.Match[World, Buttons], host *World) Report {
	w := m.State()
	s := m.Stats()
	rep := Report{Seat: m.Seat(), Frame: m.Frame(), Missed: -1, Compared: s.Compared, Agreed: s.Agreed, Corrections: s.Rollbacks, Rebuilds: s.Rebuilds,
		InputLead: s.InputLead, TimeScale: s.TimeScale}
	me := rep.Seat
	if me < 0 || me >= MaxPlayers || !w.Slots[me].Live {
		return rep
	}
	dist := func(a, b Mob) float64 { return math.Hypot(float64(a.X-b.X), float64(a.Y-b.Y)) / sub }
	for i := range w.Mobs {
		if i != me && w.Slots[i].Live {
			rep.Held++
			if dist(w.Mobs[i], w.Mobs[me]) > Sight+lingerTravel {
				rep.Far++
			}
		}
	}
	if host == nil {
		return rep
	}
	rep.Missed = 0
	for i := range host.Mobs {
		if i != me && host.Slots[i].Live && !w.Slots[i].Live && dist(host.Mobs[i], host.Mobs[me]) < Sight-40 {
			rep.Missed++
		}
	}
	return rep
}

// Predictions is the line that says how this client's predictions of
// its avatar fare: how many of the host's states agreed with them, and
// how early its inputs reach the host at what tick rate (the host's
// time-dilation advice).
func Predictions(s netplay.Stats) string {
	share := 100.0
	if s.Compared > 0 {
		share = 100 * float64(s.Agreed) / float64(s.Compared)
	}
	return fmt.Sprintf("predictions: %d of %d agreed (%.1f%%); inputs %.1f ticks early, ticks at x%.3f", s.Agreed, s.Compared, share, s.InputLead, s.TimeScale)
}

// lingerTravel is how far apart an entity and an avatar can get while the
// entity is still held after it left the player's sight: 30 ticks of
// linger (entity's default) and up to 20 more for its leave to arrive, at
// most 1.5 and 2.9 pixels a tick.
const lingerTravel = (30 + 20) * (1.5 + 2.9)

func writePNG(path string, screen *ebiten.Image) error {
	b := screen.Bounds()
	img := image.NewRGBA(b)
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
