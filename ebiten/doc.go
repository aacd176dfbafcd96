// Package rollebiten plays a rollnet match in an Ebitengine game: the
// game's simulation, input and drawing wrapped in an ebiten.Game that
// makes one netplay AdvanceFrame per Update, at TPS = the match's frame
// rate (never a step inside a step). A whole game's netcode:
//
//	keys := rollebiten.KeyMap[Buttons]{ // Buttons: the game's input, a bit set
//		{Bits: Left, Keys: []ebiten.Key{ebiten.KeyArrowLeft, ebiten.KeyA}},
//		{Bits: Right, Keys: []ebiten.Key{ebiten.KeyArrowRight, ebiten.KeyD}},
//	}
//	err := rollebiten.Run(rollebiten.Config[World, Buttons]{
//		Match:    netplay.Config{Signal: "ws://host:8080", Room: "friday", Players: 2},
//		Init:     setup,    // func(*World): the state before frame 0
//		Simulate: simulate, // func(*World, []Buttons, rollnet.Frame), deterministic
//		Input:    keys.Reader(),
//		Draw:     draw, // func(*ebiten.Image, *rollebiten.View[World])
//	})
//	if err != nil && !errors.Is(err, rollebiten.ErrInterrupted) {
//		log.Fatal(err)
//	}
//
// It lives in its own module (github.com/rollnet/rollnet/ebiten) so that
// rollnet's packages never depend on Ebitengine or cgo; its package name
// is rollebiten so that a game imports it beside Ebitengine's ebiten.
//
// # Modes
//
// Config.Mode picks netplay's call: Join (P2P, the default), Watch (a
// spectator), Host (authoritative; LocalPlayers 1 plays slot 0) or
// Connect (an authoritative client). Rejoining is netplay's: with
// Match.Tokens set, a game started again in the same room comes back to
// its seat, the overlay showing the replay's progress.
//
// # Waiting for players
//
// A player alone in its room past Match.Timeout (30 s by default) is not
// closed: the overlay asks "no one joined in 30s: press W to keep
// waiting, Esc to quit" while the match waits on (netplay's AdvanceFrame
// returns the lobby's timeout once); W takes the question away until the next
// Timeout, Esc ends the game with netplay.ErrTimeout, and whoever joins
// meanwhile starts the match. Game.Asking reports the question (drawn
// even with HideStatus); Config.KeepWaiting waits without asking. A
// timeout reaching the signaling server still ends the game.
//
// # Quitting
//
// Run returns when the window is closed, when the game calls Game.Quit
// (from Update's callbacks: a key, OnStop at Config.Frames, the end of
// a round), or on SIGINT or SIGTERM (Ctrl-C in a terminal; Run then
// returns ErrInterrupted). Each way it closes the match first, so the
// other players see this one quit rather than go away.
//
// # Drawing
//
// Draw receives a View: in P2P (and for a spectator or a host) one state
// to draw as is; for an authoritative client its predicted present for
// what the player controls and the two host states around the render
// time with the blend factor for the rest (netplay's Playout). Then the
// overlay: the status while it says something (connecting, waiting for
// whom, interrupted, away, rejoining with progress, desynced, a desync
// repaired, ended) and a network graph of the last 120 ticks (round trip,
// rollbacks per second, frame advantage). StatusBox and GraphBox place and size them
// (PlaceOverlay at run time); HideStatus and HideGraph, or SetOverlay,
// switch them off, and Game.Figures hands the graph's figures (and
// Game.Status the status) to a game that draws them in its own HUD.
// Config.Draw is handed the View, not the Game: a game that calls Figures
// (or Quit) from its drawing keeps the *Game that OnUpdate is handed, or
// the one New returns. View.Present is nil until the first state.
//
// # Input
//
// KeyMap folds keys and standard-layout gamepad buttons into an input
// that is a bit set; Config.Input may be any function instead.
//
// # Allocation
//
// Update allocates nothing per frame once the match runs (asserted in
// the tests, beside netplay's own), nor does the overlay while its text
// does not change.
//
// # Browser
//
// The same game built with GOOS=js GOARCH=wasm plays in a browser tab
// (Ebitengine draws on a canvas; netplay dials the signaling server and
// WebRTC through the browser).
package rollebiten
