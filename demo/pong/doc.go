// Command pong is rollnet's demo: a deterministic pong played by two
// processes over WebRTC with rollback netcode.
//
//	go run ./demo/pong
//
// With no flags it starts a signaling server on loopback, starts a second
// copy of itself as the opponent (a bot), and the two connect over WebRTC
// and play. On a terminal you move the left paddle (arrow keys or W/S, q
// quits); without one (CI, a pipe) both sides are bots and it plays a fixed
// number of frames. Both processes print the same report at exit, and the
// exit status is non-zero on a desync or a failure to connect.
//
// To play another machine through a running signaling server:
//
//	go run ./demo/pong -signal ws://HOST:PORT -room NAME
//
// and to watch a match already running in that room (both players must
// be in it first; the oldest peer there, the left player, is the host):
//
//	go run ./demo/pong -signal ws://HOST:PORT -room NAME -spectate
//
// The left player adds a peer that connects during the match as a
// spectator (session's AddSpectator); the spectator replays the match from
// frame 0 out of the left player's P2PConfig.SpectatorArchive, which holds
// the whole match with -frames, else its first ten minutes (72 KB): a
// spectator joining later is refused, and the report says so.
//
// Flags: -bot (a bot plays this side), -frames N, -delay F (input delay),
// -impair 100ms,15ms,2% (latency, jitter and loss added to what this side
// sends, to watch rollback work), -spectate (watch: two bot processes this
// one starts, or with -signal the match in -room), -offline (no network).
//
// The screen and the report show two round trips: the game loop's
// (session.PeerStats.RTT: a packet also waits for each loop's next tick,
// so on loopback at 60 fps it reads 17-33 ms, and it is what an input
// meets) and, over WebRTC, the network's own (transport/webrtc's
// PeerInfo, ICE's keep-alives: well under a millisecond on loopback).
//
// The contract the demo keeps, and its tests check: the game (game.go) is
// integer arithmetic on a pointer-free, padding-free State, so both peers
// agree byte for byte; both processes compare checksums of confirmed
// frames six times a second (the session's desync detection: the figures
// shown are its PeerStats.ChecksumsCompared and ChecksumsAgreed, and its
// DesyncDetected events); at exit both print
// the same report, and the exit status is 0 for a clean match, 1 for a
// desync, 2 for bad flags, 3 for a failure to connect or play. The
// opponent process never outlives the parent: it exits when its stdin (a
// pipe the parent holds) closes, and on Linux the kernel kills it if the
// parent dies.
package main
