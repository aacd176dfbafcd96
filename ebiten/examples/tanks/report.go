package main

// The flags the tests (and a curious player) use: a bot that plays by
// itself, a match that stops at a frame, and a report of what was seen.
// None of it is netcode.

import (
	"encoding/json"
	"flag"
	"fmt"
	"github.com/rollnet/rollnet/ebiten/examples/tanks/world"
	"os"
	"time"

	"github.com/rollnet/rollnet"
	rollebiten "github.com/rollnet/rollnet/ebiten"
	"github.com/rollnet/rollnet/netplay"
)

var launched = time.Now()

// Report is what -report writes when the match stops at -frames.
type Report struct {
	Seat   int
	Frame  rollnet.Frame
	Status string
	Desync string
	// Sums are the confirmed frames' checksums, [frame, sum] pairs.
	Sums [][2]uint32
	// Tanks are where each tank is drawn, in screen pixels, and its color.
	Tanks []ReportTank
	// FirstShared is the time from launch to the first frame every player
	// confirmed, in milliseconds.
	FirstShared float64
}

// ReportTank is one tank on the screen.
type ReportTank struct {
	X, Y    float64
	R, G, B uint8
}

func testFlags() func(*rollebiten.Config[world.World, world.Buttons]) {
	frames := flag.Int("frames", 0, "stop at this frame (the last state stays on screen)")
	report := flag.String("report", "", "with -frames: write a JSON report there at the stop (- for stdout)")
	bot := flag.Bool("bot", false, "play by itself")
	hold := flag.Duration("hold", 0, "with -frames: exit this long after the stop (0: stay until closed)")
	overlay := flag.Bool("overlay", true, "draw the status overlay and the network graph")
	logStatus := flag.Bool("log", false, "print the status line to stderr once a second")
	return func(cfg *rollebiten.Config[world.World, world.Buttons]) {
		cfg.HideStatus, cfg.HideGraph = !*overlay, !*overlay
		if *bot {
			cfg.Input = botInput()
		}
		cfg.Frames = rollnet.Frame(*frames)
		var r Report
		ticks := 0
		cfg.OnUpdate = func(g *rollebiten.Game[world.World, world.Buttons]) {
			if ticks++; *logStatus && ticks%g.TPS() == 0 {
				fmt.Fprintf(os.Stderr, "tanks: %.1fs %v (frame %d)\n", time.Since(launched).Seconds(), g.Status(), g.Status().Frame)
			}
			f, _, ok := g.Match().ConfirmedChecksum()
			if !ok || f < 0 {
				return
			}
			if r.FirstShared == 0 {
				r.FirstShared = float64(time.Since(launched).Microseconds()) / 1000
			}
			next := rollnet.Frame(0)
			if len(r.Sums) > 0 {
				next = rollnet.Frame(r.Sums[len(r.Sums)-1][0]) + 1
			}
			for ; next <= f; next++ { // every frame confirmed since the last Update
				if sum, err := g.Match().ChecksumAt(next); err == nil {
					r.Sums = append(r.Sums, [2]uint32{uint32(next), sum})
				}
			}
		}
		cfg.OnStop = func(g *rollebiten.Game[world.World, world.Buttons]) {
			st := g.Status()
			r.Seat, r.Frame, r.Status, r.Desync = g.Match().Seat(), st.Frame, st.String(), st.Desync
			v := rollebiten.View[world.World]{Seat: r.Seat}
			v.Present = g.Match().State()
			v.A, v.B = v.Present, v.Present
			if g.Match().Mode() == netplay.ModeClient {
				v.A, v.B, v.Alpha, _ = g.Match().Playout()
			}
			for i := range int(v.Present.Players) {
				x, y := TankAt(&v, i)
				c := TankColors[i]
				r.Tanks = append(r.Tanks, ReportTank{X: x, Y: y, R: c.R, G: c.G, B: c.B})
			}
			if *report != "" {
				b, _ := json.Marshal(r)
				if *report == "-" {
					fmt.Println("report " + string(b))
				} else if err := os.WriteFile(*report, b, 0o644); err != nil {
					fmt.Fprintln(os.Stderr, "tanks:", err)
				}
			}
			if *hold > 0 {
				time.AfterFunc(*hold, func() { os.Exit(0) })
			}
		}
	}
}

// botInput drives around and fires, changing its mind every 40 ticks (a
// different course for each process: it seeds from the launch time).
func botInput() func() world.Buttons {
	tick, seed := uint32(0), uint32(launched.UnixNano())|1
	var b world.Buttons
	return func() world.Buttons {
		if tick%40 == 0 {
			seed ^= seed << 13
			seed ^= seed >> 17
			seed ^= seed << 5
			b = [8]world.Buttons{world.Up, world.Down, world.Left, world.Right, world.Up | world.Left, world.Up | world.Right, world.Down | world.Left, world.Down | world.Right}[seed%8]
		}
		tick++
		if tick%25 == 0 {
			return b | world.Fire
		}
		return b
	}
}
