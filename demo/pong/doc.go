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
// and play. On a terminal you move the left paddle (arrow keys or W/S; q,
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
// refused). A third player in a room that holds two is told it is full.
// To watch a match already running in that room (both players must be in
// it first; the oldest peer there, the left player, is the host):
//
//	go run ./demo/pong -signal ws://HOST:PORT -room NAME -spectate
//
// The left player adds a peer that connects during the match as a
// spectator (session's AddSpectator); the spectator replays the match from
// frame 0 out of the left player's P2PConfig.SpectatorArchive, which holds
// the whole match with -frames, else its first ten minutes (72 KB): a
// spectator joining later is refused, and the report says so. The left
// player feeds a spectator far behind in bulk and it fast-forwards (a
// spectator joining ten minutes in is live within about two seconds):
// meanwhile its screen counts the frames to go instead of drawing them.
// The left player's report says when each spectator joined and left.
//
// Flags (pong -h lists them all): -name (yours, default your login name),
// -bot (a bot plays this side), -frames N, -delay F (input delay), -impair
// 100ms,15ms,2% (latency, jitter and loss added to each direction of this
// side's link, at most 1s of latency plus jitter, so that rollbacks show
// on your own screen), -spectate (watch: two bot processes this one
// starts, or with -signal the match in -room), -offline (no network).
//
// Before the session starts the players exchange names in a hello of the
// demo's own (hello.go), and the left player sends a spectator the names
// and its frame; a session that meets a hello drops it as malformed.
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
// token (session.P2P.RejoinToken) in FILE once the match runs: mode 0600,
// written to a temporary file renamed over FILE, JSON with a format
// version, the room, the side, the opponent's signaling id, the names and
// the settings a restart must repeat (rejoin.go). A process started again
// with the same flags while FILE is there joins the same room, sets
// P2PConfig.Rejoin from it, catches up without drawing (its screen says
// "rejoining: frame X of ~Y") and plays on with the same paddle from the
// frame R the players agree on ("rejoined at frame R"). Headless, a
// -rejoin player prints the checksum of every 60th confirmed frame
// ("pong: checksum frame F X"; the restarted one from R on) for tests to
// compare across the restart. A refusal (*session.RejoinError: another
// match's FILE, the window over) prints its reason in one line, removes
// FILE and exits 5; a damaged FILE, one of another room or other
// settings, or -rejoin without a named -room exits 2. The match ending
// (its frame budget, q, the opponent gone for good, a desync) removes
// FILE; a failure to connect keeps it for another try, unless the
// opponent FILE names is no longer in the room (its match is over).
//
// The other player, with -rejoin too, keeps playing when its opponent
// vanishes (the opponent's last input repeats: the session's frozen
// input), shows "right dropped — can rejoin for 57 s" counting down, and
// only when the 60 s window (NetConfig.RejoinWindow, from the
// disconnection) passes ends the match as vanished (exit 4); the report
// says when it dropped and when it rejoined. An opponent that quit (its
// session said goodbye) is not waited for. The left player with -rejoin
// holds a newly connected peer 2 s before taking it for a spectator, up
// to 10 s while the opponent is silent or dropped: it may be the opponent
// coming back, even restarted at once (before its old process is missed).
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
// client applied (sums.go) and exit 1 on a difference. The client prints
// a rejoin token and, with -rejoin FILE, keeps it there: killed and
// started again with the same -rejoin FILE within the host's -grace it
// gets its paddle back (authority.ClientConfig.Rejoin), after it a fresh
// one whose token replaces the old in FILE. A
// dedicated host:
//
//	go run ./demo/pong host [-signal URL] [-room NAME]   # then two players:
//	go run ./demo/pong -mode authority -signal URL -room NAME
//
// is package hostcmd's command with pong registered (rollnet-host's, see
// authority/cmd).
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
