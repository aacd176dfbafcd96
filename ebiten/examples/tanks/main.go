package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/rollnet/rollnet/ebiten/examples/tanks/world"
	"os"

	"github.com/hajimehoshi/ebiten/v2"

	rollebiten "github.com/rollnet/rollnet/ebiten"
	"github.com/rollnet/rollnet/internal/signalurl"
	"github.com/rollnet/rollnet/netplay"
)

var keys = rollebiten.KeyMap[world.Buttons]{
	{Bits: world.Up, Keys: []ebiten.Key{ebiten.KeyArrowUp, ebiten.KeyW}, Buttons: []ebiten.StandardGamepadButton{ebiten.StandardGamepadButtonLeftTop}},
	{Bits: world.Down, Keys: []ebiten.Key{ebiten.KeyArrowDown, ebiten.KeyS}, Buttons: []ebiten.StandardGamepadButton{ebiten.StandardGamepadButtonLeftBottom}},
	{Bits: world.Left, Keys: []ebiten.Key{ebiten.KeyArrowLeft, ebiten.KeyA}, Buttons: []ebiten.StandardGamepadButton{ebiten.StandardGamepadButtonLeftLeft}},
	{Bits: world.Right, Keys: []ebiten.Key{ebiten.KeyArrowRight, ebiten.KeyD}, Buttons: []ebiten.StandardGamepadButton{ebiten.StandardGamepadButtonLeftRight}},
	{Bits: world.Fire, Keys: []ebiten.Key{ebiten.KeySpace}, Buttons: []ebiten.StandardGamepadButton{ebiten.StandardGamepadButtonRightBottom}},
}

var modes = map[string]netplay.Mode{"p2p": netplay.ModeP2P, "watch": netplay.ModeSpectator,
	"host": netplay.ModeHost, "listen": netplay.ModeHost, "client": netplay.ModeClient}

func main() {
	signal := flag.String("signal", "ws://127.0.0.1:8080", "the signaling server (rollnet-signal)")
	room := flag.String("room", "tanks", "the room to meet in")
	name := flag.String("name", "", "your name, shown to the others")
	players := flag.Int("players", 2, "players, 2 to 4 (an authoritative host's slots)")
	mode := flag.String("mode", "p2p", "p2p, watch (a spectator), host (dedicated), listen (host and play) or client")
	tokens := flag.String("tokens", "", "keep the rejoin token in this file: start again with it to come back")
	hooks := testFlags()
	if err := flag.CommandLine.Parse(args()); err != nil {
		os.Exit(2)
	}
	if _, ok := modes[*mode]; !ok || *players < 2 || *players > world.MaxTanks {
		fmt.Fprintf(os.Stderr, "tanks: -mode %q -players %d: see -help\n", *mode, *players)
		os.Exit(2)
	}
	cfg := rollebiten.Config[world.World, world.Buttons]{
		Match:    netplay.Config{Signal: *signal, Room: *room, Name: *name, Players: *players},
		Mode:     modes[*mode],
		Init:     func(w *world.World) { *w = world.NewWorld(*players) },
		Simulate: world.Simulate, Input: keys.Reader(), Draw: Draw, Title: "tanks",
	}
	if *mode == "listen" {
		cfg.Match.LocalPlayers = 1
	}
	if *tokens != "" {
		cfg.Match.Tokens = netplay.FileStore(*tokens)
	}
	hooks(&cfg)
	err := rollebiten.Run(cfg)
	if errors.Is(err, rollebiten.ErrInterrupted) { // Ctrl-C: the match was left cleanly
		fmt.Fprintln(os.Stderr, "tanks: interrupted: left the match")
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tanks:", signalurl.RedactError(err, *signal))
		os.Exit(1)
	}
}
