// Command pong is rollnet's demo: a deterministic pong played by two
// processes over WebRTC with rollback netcode, peer to peer or
// server-authoritative, on a terminal or in a browser tab.
//
//	go run ./demo/pong      # you against a bot process, over WebRTC on loopback
//	go run ./demo/pong -h   # every mode, flag, key and exit status
//
// The usage text -h prints (usageText and exitText in main.go) is the
// reference for the command line, and the README's "Choosing a mode" for
// the modes; this comment states what the code keeps. The first run
// compiles pion and the rest, a minute or two with nothing on the screen.
//
// Package main holds the game's views and the command line only: the
// terminal view (view.go: the court and a HUD of the live numbers that
// show rollback at work), the browser pong (web_wasm.go, built and served
// by -web in web.go) and the flags (main.go). The rules are package game
// (demo/pong/game); every match, in every mode, is a netplay.Match.
//
// The contract the demo keeps, and its tests check:
//   - the game is integer arithmetic on a pointer-free, padding-free State,
//     so every peer agrees byte for byte; the peers compare the checksums
//     of confirmed frames six times a second and a difference exits 1;
//   - a bad command line exits 2 with one line saying why, before anything
//     touches the network (a -record FILE that cannot be written, a busy
//     -web port); a room token in -signal's URL is never printed;
//   - the HUD shows two round trips: the game loop's (PeerStats.RTT, which
//     also waits for each loop's tick) and the network's own (ICE's), with
//     -impair's share apart;
//   - an opponent who leaves is explained on the screen and in the report:
//     it quit (its session said goodbye) or vanished (declared disconnected
//     after at most 5 s), and with -rejoin how long it may come back;
//   - the opponent process never outlives its parent: it exits when its
//     stdin (a pipe the parent holds) closes, and on Linux the kernel kills
//     it if the parent dies; a panic in the terminal UI gives the terminal
//     back before it is printed.
package main
