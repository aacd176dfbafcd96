// Package netplay puts a game in a match in a few calls, for both of
// rollnet's modes: P2P rollback (Join, Watch) and the authoritative mode
// (Host, Connect). A whole game loop:
//
//	m, err := netplay.Join[World, Buttons](netplay.Config{
//		Signal: "ws://signal.example:8080", Room: "friday",
//		Name: "alice", Players: 2,
//	}, simulate)
//	if err != nil {
//		return err
//	}
//	defer m.Close()
//	for range time.Tick(time.Second / 60) { // Config.FrameRate times a second
//		st, err := m.AdvanceFrame(readButtons())
//		if err != nil {
//			return err // fatal: wrong settings, wrong room, timeout, ...
//		}
//		draw(m.State(), st) // st: connecting, waiting for whom, away, ...
//		if st.Phase == netplay.Ended {
//			return nil
//		}
//	}
//
// Each constructor returns at once; the Match connects in the background
// and AdvanceFrame reports Connecting until the session exists, so an
// engine that owns its loop (Ebitengine's Update at TPS = FrameRate) makes
// the same one call per tick and never blocks. AdvanceFrame folds what a
// game only waits out (the handshake, a peer's late inputs, a wait
// recommended to stay in time, a rejoin's replay, a spectator's catch-up)
// into its Status, and returns only fatal errors. Status.String is a
// status line.
//
// # Rooms and seats
//
// Every peer joins a room of a signaling server (package signaling) and
// says hello to every peer it connects to over the transport: its role
// (player, spectator, host, client), name, seat, game settings and input
// delay proposal. The rules:
//
//   - P2P seats: once Players players are heard, each peer seats them by
//     their transport ids (the server's, 16 hex digits) sorted ascending:
//     the same seats on every peer, without a leader.
//   - Spectators are fed by the player in seat 0, from the first frame
//     (players keep Tuning.Archive frames of inputs for them).
//   - The authoritative host announces itself in its hello; a client
//     connects to the host only (its WebRTC Accept refuses every other
//     peer once it knows the host). A client that reaches a P2P room gets
//     ErrP2PRoom, a P2P peer that reaches a host's room ErrAuthorityRoom,
//     and a peer whose players, frame rate or Config.Settings differ
//     ErrSettings naming both: at once, not after a timeout.
//   - A P2P player (or spectator) takes those errors only from the peers
//     it is matched with, so that a stranger cannot end a match: the
//     room's first Players players in its order of arrival, which the
//     server decides and every member sees alike (the members there
//     before this peer joined, then those after it as the room reports
//     them: transport.Arrivals; over Config.Transport, Config.Peers are
//     those before). A member that came later and says it is a host, or
//     wants a seat once they are taken, is a stranger: its claim is
//     ignored and counted (Stats.Strangers), its connection closed; it
//     fails itself, since it sees the players before it. (A member that
//     comes before the last player cannot be told from a player: it takes
//     a seat, or fails the others. Rooms that must be closed to strangers
//     use the signaling server's room keys.)
//   - The host sends its clients the roster (each slot's name, and who is
//     away and for how long), so every client names every player.
//
// # A dedicated host over QUIC
//
// An authoritative client can reach a dedicated host without a signaling
// server, over QUIC (transport/quic): Connect with Config.QUIC dials
// QUICHost.URL (quic://HOST:PORT), accepts the certificate whose SHA-256
// QUICHost.PinSHA256 names (the sha256= a host logs) and presents
// QUICHost.Grant, the connect token a host started with Config.Tokens
// wants; with Config.Fleet it asks the fleet behind a signaling server
// where to go and dials that host the same way. A host that cannot be
// reached, shows another certificate or refuses the token is the error of
// AdvanceFrame, wrapping ErrHostUnreachable. Config.QUIC's client greets
// the host as in a room (its settings are checked, its name known); the
// fleet's client knows its host from the placement. A udp://HOST:PORT
// URL dials the host's plain UDP port instead (transport/udp, the lean
// transport a host serves with -udp): the same grant, no certificate.
//
// # Input delay from the round trip
//
// Before a P2P match, each player pings the others (5 round trips each)
// and proposes the delay that covers half the worst median round trip:
// ceil((RTT/2) / frame), within Config.InputDelay (default 1 to 4 frames;
// Min == Max fixes it without measuring). Each announces its proposal in
// its hello once made (and never changes it), and the match uses the
// largest: every player computes the same. Spectators and rejoiners take
// the running match's. The delay is fixed for the match, unless
// DelayBounds.Follow is set: then it follows the network within [Min, Max]
// during the match (p2p's delay.go says how the peers agree and what a
// change does to local input), shown in Status.InputDelay, counted in
// Stats.DelayChanges and told in News.
//
// # Coming back
//
// With Config.Tokens (FileStore: one file, 0600, written atomically), a
// player's rejoin token is saved as soon as the match gives it and
// deleted when the match ends or the player Closes; a Match started again
// for the same room while the token is there rejoins: a P2P player its
// seat (the match replayed without drawing, Status Rejoining with
// progress), an authoritative client its slots. A refusal is
// ErrRejoinRefused (the token is deleted). Tokens implement
// encoding.TextMarshaler.
//
// # What happened, and the figures
//
// News is the match's story, a line each as it happens (never per
// frame): "bob dropped at frame 412 (nothing heard for 5s): may rejoin
// for 60 s", "bob rejoined at frame 730", this player's own "rejoined at
// frame 730: replayed 728 frames in 1.1s", "spectator eve joined at frame
// 90 (replays from frame 0)", a host's "carl joined at frame 12 (slot
// 2)", a client's "joined the host hana at frame 14 (slot 2)", a
// spectator's "caught up with the host: ...". A game shows the newest and prints News()[n:] for the n it
// has shown. Stats sums the session's figures for every mode (rollbacks,
// the round trips through the game loops and, over WebRTC, the network's
// and the route ICE chose, when the first channel opened, the checksums
// compared and agreed, bytes, spectators, rejoins); reading it allocates
// nothing, except over WebRTC once a second, when it asks pion for the
// network's figures (webrtc.Transport.Path). An authoritative client's checksums are its host's: every 8th
// state carries one, which the client checks (authority.ClientStats's
// StatesVerified and StatesUnverified); a state that fails its check
// after taking one that was not the host's is a desync, Status.Desync
// names it, as a P2P desync.
//
// # Messages
//
// netplay's messages travel on the same transport as the session's,
// under the one message type the wire leaves to the layer above
// (type 0, the wire's TypeApp), which the Match takes off the transport before the
// session reads it:
//
//	[wire version<<4 | 0] [kind u8] body
//	kind 1 hello   [role u8][seat u8][flags u8][delay+1 u8][players u8]
//	               [frame rate u16 LE][settings u64 LE][name len u8][name]
//	kind 2 ping, 3 pong  [stamp u64 LE]
//	kind 4 message [payload: 1 to MaxMessage bytes]
//	kind 5 roster  [count u8] count × ([state u8][back s u8][name len u8][name])
//
// Send carries the game's own small messages (a chat line, a rematch
// request) to every peer, and Config.OnMessage receives them. Malformed
// messages are counted (Malformed) and dropped.
//
// # Time
//
// Call AdvanceFrame FrameRate times a second. A P2P player or spectator
// simulates at most one frame per call (a spectator catching up more). An
// authoritative client measures the real time between calls and runs its
// fixed timestep at the host's advised rate: 0, 1 or 2 steps a call,
// never a step inside a step; draw State for what the player controls and
// Playout (two host states and the blend factor) for the rest.
package netplay
