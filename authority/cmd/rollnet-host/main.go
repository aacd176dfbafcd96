// Command rollnet-host is a dedicated host of rollnet's
// server-authoritative mode (package authority): clients join a room on a
// signaling server and play the registered game over WebRTC; the host
// holds no player. It is package hostcmd's Main with the games this binary
// links: "court", a small example (up to eight paddles, each client
// steering one). A game's own binary registers its simulation the same
// way and offers the same command (the pong demo: go run ./demo/pong host).
//
//	go run ./authority/cmd/rollnet-host                                  # a signaling server on loopback too
//	go run ./authority/cmd/rollnet-host -signal ws://HOST:PORT -room lobby -grace 30s
//	go run ./authority/cmd/rollnet-host -quic :4433 -webtransport        # QUIC and browsers too, no signaling needed
//
// Logs are structured (log/slog) on stderr. SIGINT or SIGTERM sends every
// client a disconnect notice and exits 0.
package main

import (
	"os"

	"github.com/rollnet/rollnet/authority/cmd/hostcmd"
	_ "github.com/rollnet/rollnet/authority/cmd/hostcmd/court" // registers "court"
)

func main() {
	os.Exit(hostcmd.Main("rollnet-host", os.Args[1:], os.Stdout, os.Stderr))
}
