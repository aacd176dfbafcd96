package rollebiten_test

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/rollnet/rollnet"
	rollebiten "github.com/rollnet/rollnet/ebiten"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// The tests link Ebitengine, which needs an X display on Linux even for
// tests that open no window: run them under xvfb-run (.ci/run does).

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// World is the tests' game: dots pushed by their players' buttons.
type World struct {
	X [4]int32
	T int32
}

// Buttons is one player's input.
type Buttons uint8

const (
	Left Buttons = 1 << iota
	Right
)

func simulate(w *World, in []Buttons, _ rollnet.Frame) {
	for p, b := range in {
		if b&Left != 0 {
			w.X[p]--
		}
		if b&Right != 0 {
			w.X[p]++
		}
	}
	w.T++
}

func draw(*ebiten.Image, *rollebiten.View[World]) {}

var epoch = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// lan is games on a local network and a fake clock.
type lan struct {
	clock *local.Clock
	net   *local.Network
}

func newLAN(link local.Link) *lan {
	clock := local.NewClock(epoch)
	n, err := local.NewNetwork(local.Config{Seed: 1, Now: clock.Now, Link: link})
	if err != nil {
		panic(err)
	}
	return &lan{clock: clock, net: n}
}

// game starts a game on endpoint name of the lan, greeting peers.
func (l *lan) game(name string, mode netplay.Mode, players int, in func() Buttons, peers ...string) (*rollebiten.Game[World, Buttons], error) {
	ep, err := l.net.Endpoint(name)
	if err != nil {
		return nil, err
	}
	cfg := rollebiten.Config[World, Buttons]{
		Match: netplay.Config{Transport: ep, Now: l.clock.Now, Players: players, Name: name, Room: "r",
			InputDelay: netplay.DelayBounds{Min: 1, Max: 1}}, // under the latency: rollbacks
		Mode: mode, Simulate: simulate, Input: in, Draw: draw,
	}
	for _, p := range peers {
		cfg.Match.Peers = append(cfg.Match.Peers, transport.Peer(p))
	}
	return rollebiten.New(cfg)
}

// sway is an input that changes every 7 ticks, so peers mispredict.
func sway() func() Buttons {
	n := 0
	return func() Buttons {
		n++
		return [3]Buttons{0, Left, Right}[n/7%3]
	}
}
