// Command tanks is a rollback-netcode tank game for 2 to 4 players on
// Ebitengine, the example of package rollebiten: drive with the arrows or
// WASD (or a gamepad's d-pad), fire with space (or the gamepad's bottom
// button); a shell that hits a tank pushes it back and scores. Every
// number of the simulation is an integer, so peers agree bit for bit.
//
//	tanks -signal ws://127.0.0.1:8080 -name ann    # a window
//	tanks -mode host / -mode client / -mode watch  # the other parts
//
// The netcode is main's rollebiten.Config and rollebiten.Run; see
// README.md for two windows and a browser tab.
package main
