// Command rollnet-host is a dedicated host of rollnet's
// server-authoritative mode (package authority): clients join a room on a
// signaling server and play the chosen game over WebRTC; the host holds
// no player. It is package authority/dedicated's Main with the games this
// binary links, chosen with -game: "court" (the default), a small example
// (up to eight paddles, each client steering one), and "pong", the demo's
// game (package internal/ponggame: two paddles and a spectator's slot; its
// clients are go run ./demo/pong -mode authority). A game's own binary hands its
// simulation to the same Main and offers the same command (the pong demo:
// go run ./demo/pong host).
//
//	go run ./authority/cmd/rollnet-host                                  # court; a signaling server on loopback too
//	go run ./authority/cmd/rollnet-host -game pong                       # pong, in room rollnet-host
//	go run ./authority/cmd/rollnet-host -signal ws://HOST:PORT -room lobby -grace 30s
//	go run ./authority/cmd/rollnet-host -quic :4433 -webtransport        # QUIC and browsers too, no signaling needed
//
// Logs are structured (log/slog) on stderr. SIGINT or SIGTERM sends every
// client a disconnect notice and exits 0.
package main

import (
	"os"

	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/authority/dedicated"
	"github.com/rollnet/rollnet/internal/court"
	game "github.com/rollnet/rollnet/internal/ponggame"
)

// games are the games this binary hosts: court, and the demo's pong as its
// own "pong host" hosts it (the serve seed from the room's name, a late
// input rolled back for).
var games = []dedicated.Game{
	dedicated.Sim[court.State, int8]{Name: "court", Players: court.Players, Simulate: court.Simulate, Init: court.Init},
	dedicated.Sim[game.State, game.Input]{
		Name:      "pong",
		Players:   game.AuthoritySlots,
		Simulate:  game.Simulate,
		Settings:  func(room string) uint64 { return uint64(game.SeedFor(room)) },
		Init:      func(seed uint64) game.State { return game.NewState(uint32(seed)) },
		LateInput: authority.LateRollback,
		// The third slot is a spectator's: -absence never waits for it.
		PlayingSlots: 2,
	},
}

// defaultGame is the game hosted without -game (a later -game wins).
const defaultGame = "court"

func main() {
	os.Exit(dedicated.Main("rollnet-host", games, append([]string{"-game", defaultGame}, os.Args[1:]...), os.Stdout, os.Stderr))
}
