// Command pong is rollnet's demo: a deterministic pong played by two
// processes over WebRTC with rollback netcode.
//
//	go run ./demo/pong
//
// The first run downloads and compiles pion (WebRTC) and the rest, a
// minute or two with nothing on the screen; later runs start in about a
// second.
//
// With no flags it starts a signaling server on loopback, starts a second
// copy of itself as the opponent (a bot), and the two connect over WebRTC
// and play. On a terminal you move your paddle, the green one (arrow keys or W/S; q,
// Esc or Ctrl-C quits, also while waiting for the opponent); without one
// (CI, a pipe) both sides are bots and it plays a fixed number of frames.
// Both processes print a report at exit.
//
// To play another machine through a running signaling server
// (go run ./signaling/cmd/rollnet-signal):
//
//	go run ./demo/pong -signal ws://HOST:PORT -room NAME
//
// (or -signal ws://HOST:PORT/room/NAME; a -room naming another room is
// refused). Every mode is built on package netplay: the players are
// seated by their transport ids, sorted (the same seats on both, so either
// may be left), a third player in a room whose two play is told it is
// full, and a spectator watches the match in a room:
//
//	go run ./demo/pong -signal ws://HOST:PORT -room NAME -spectate
//
// fed by the seat-0 player from frame 0 out of its archive (the whole
// match with -frames, else its first ten minutes); it fast-forwards while
// far behind, its screen counting the frames to go. The players' names
// come from netplay's hellos and the seat-0 player's roster.
//
// Flags (pong -h lists them all): -name (yours, default your login name),
// -bot (a bot plays this side), -frames N, -delay F (input delay), -impair
// 100ms,15ms,2% (latency, jitter and loss added to each direction of this
// side's link, at most 1s of latency plus jitter, so that rollbacks show
// on your own screen), -spectate (watch: two bot processes this one
// starts, or with -signal the match in -room), -offline (no network).
//
// The screen and the report show two round trips: the game loop's
// (rollnet.PeerStats.RTT: a packet also waits for each loop's next tick,
// so on loopback at 60 fps it reads 17-33 ms, and it is what an input
// meets) and, over WebRTC, the network's own (transport/webrtc's
// PeerInfo, ICE's keep-alives: well under a millisecond on loopback).
// Over WebRTC the report's path line names the candidate pair ICE chose
// (direct, stun or relay, over UDP or TCP, and the candidates' types) and
// how long after joining the room the channel opened.
//
// An opponent who leaves is explained on the screen and in the report: it
// quit (its session said goodbye: q, Ctrl-C, SIGTERM), or it vanished
// (SIGKILL, a lost network: silent first) and was declared disconnected
// after so many seconds (at most 5).
//
// # Coming back after a crash: -rejoin
//
//	go run ./demo/pong -signal ws://HOST:PORT -room NAME -rejoin FILE
//
// (both players, each with its own FILE) keeps this player's rejoin
// token in FILE (netplay.FileStore: 0600, written atomically) once the
// match runs. A process started again with the same flags while FILE is
// there rejoins its seat: it replays the match without drawing
// ("rejoining: frame X of ~Y") and plays on from the frame R the players
// agree on ("rejoined at frame R"). Headless, a -rejoin player prints the
// checksum of every 60th confirmed frame ("pong: checksum frame F X") for
// tests to compare across the restart. A refusal prints its reason in one
// line, removes FILE and exits 5; a damaged FILE exits 2; the match
// ending removes FILE. The other player, with -rejoin too, keeps playing
// when its opponent vanishes (its input frozen) and shows "bob is away:
// may come back for 57 s" until the 60 s window passes (exit 4).
//
// The contract the demo keeps, and its tests check: the game (package game, in demo/pong/game) is
// integer arithmetic on a pointer-free, padding-free State, so both peers
// agree byte for byte; both processes compare checksums of confirmed
// frames six times a second (the session's desync detection: the figures
// shown are its PeerStats.ChecksumsCompared and ChecksumsAgreed, and its
// DesyncDetected events). The opponent process never outlives the parent:
// it exits when its stdin (a pipe the parent holds) closes, and on Linux
// the kernel kills it if the parent dies. A panic in the terminal UI
// gives the terminal back before it is printed.
//
// # The server-authoritative mode
//
//	go run ./demo/pong -mode authority
//
// plays the same game in package authority's mode (authority.go): the left
// player hosts (a listen server) and the right one is its client, which
// predicts its own paddle from its inputs and draws the ball and the
// host's paddle from the paced playout (package playout) a few frames in
// the past; its own paddle hides corrections (a playout.Smoother, and
// never drawn faster than 1.4 times its speed). -impair, -frames, -bot,
// -signal, -room and -spectate (a third client, without a paddle) work as
// in P2P. The screen and the report show the host's input buffer and
// advised rate, matches and mismatches per second, frames re-simulated,
// the playout's depth, stalls and jumps, and the hitches counted on the
// frames drawn. Both sides exchange the checksums of every state the
// client applied (sums.go, as netplay messages) and exit 1 on a
// difference. The client prints its rejoin token and, with -rejoin FILE,
// keeps it there: killed and started again with the same -rejoin FILE
// within the host's -grace it gets its paddle back, after it a fresh one.
// Every screen names the players (the host's roster) and says who is away
// and for how long. A dedicated host:
//
//	go run ./authority/cmd/rollnet-host -game pong   # or: go run ./demo/pong host
//	go run ./demo/pong -mode authority -signal URL -room rollnet-host
//
// is package hostcmd's command with pong registered; a client of other
// settings (a court host, another -seed) is refused at once.
//
// # Exit status
//
//	0  the match ended cleanly, or you quit (q, Esc, Ctrl-C, SIGTERM), also while waiting
//	1  a desync: the peers' checksums of a confirmed frame differ
//	2  bad flags (one line says which; pong -h prints the usage and exits 0)
//	3  a failure to connect or play: no opponent in time, the room is full, the handshake failed
//	4  the opponent (for a spectator, the host) left before the match ended: it quit, or vanished
//	   (with -rejoin: and did not rejoin within 60 s)
//	5  -rejoin: the other player refused to take this one back; FILE is removed
//
// In the default two-process mode the parent's status is its own, unless
// it is 0 and the opponent process's is not.
package main
