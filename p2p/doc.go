// Package p2p is rollnet's P2P protocol, GGPO style, on the core session
// of package session: a Session for each player peer, Spectators that
// play a match along behind, players that drop and come back (rejoin),
// late joiners, the bulk feed that catches them up, and recordings and
// desync forensics. See p2p.go for a game loop.
//
// # Desyncs in a match
//
// Peers compare the checksum of every NetConfig.ChecksumInterval-th
// confirmed frame (default 10); the checksums ride on the input messages.
// A desync is reported on both sides (EventDesyncDetected) within one
// interval plus one round trip of the frame where the simulations parted,
// plus two ticks (tested at 40, 100 and 200 ms one way: about 13, 20 and
// 33 frames at 60 fps); each lost message carrying the checksum can add a
// tick. The event names the earliest frame known to differ (Frame) and the
// newest known to agree (Agreed): the simulations parted in
// (Agreed, Frame]. It is reported once per peer.
//
// By default the peers repair it in place (protocol 5, repair.go): they
// agree on the truth at Frame (a strict majority of the player peers'
// checksums with three or more; with two, or no majority, the peer of
// seat Config.Arbiter, 0 unless the game chooses), and a peer whose
// checksum is not the truth's takes the truth's state after its newest
// confirmed frame over the bulk feed, checks it by its CRC32-C, starts
// its core session over from it and simulates again to where it was,
// within the tick the transfer completes. The match goes on; the
// repaired peer reports EventDesyncRepaired (the frame, the state's, the
// source, how long it took, and the fields the repair changed, named as
// replay.DescribeDesync names them). A 16 KiB state is repaired within
// 150 to 320 ms of the desync found over 60 ± 10 ms one way with 3% loss,
// with two peers and with three (TestP2PRepair). A peer that diverges
// again before a checksum agreed since its last repair counts the
// repairs in a row; the fourth desync ends the match (AdvanceFrame
// returns a *rollnet.SyncError whose Reason is the forensics line), as
// does a repair not done within 10 s. A tick with no repair under way
// allocates nothing. Config.NoRepair keeps the behaviour of protocol 4:
// the desync is reported and the session runs on apart, for a game that
// ends the match itself (the policy is in the settings hash).
//
// A Spectator apart from its host (its checksums against the host's)
// takes its host's state with the same messages, once the host agrees
// with every player (so the state is the players' truth), and simulates
// again from it: EventDesyncRepaired on both ends (Player -1),
// PeerStats.RepairsTaken on the spectator and RepairsServed on its host
// (TestP2PSpectatorRepair: 166 to 333 ms over the same link). A host that
// was itself apart heals the spectator with its own repair. A spectator
// not repaired within 10 s, or three times in a row, stops asking and
// watches on apart; it never ends the players' match.
//
// # A dropped player comes back
//
// A player peer that dropped (a network change, a sleep, a crash) can come
// back within NetConfig.RejoinWindow (0 means 60 s) of its disconnection:
// in the same process with Session.Rejoin on a new transport, or in a new one
// with Config.Rejoin set to the token RejoinToken returned before (the
// match id and this player's secret; the id is known once every peer is
// synchronized), with the same settings either way. A player is its
// secret, not its address: it may come back from a new one (a restarted
// process's new signaling id, a phone that moved to mobile data), which
// every peer then knows it by (EventPlayerRejoined.Peer, PeerStats); its
// old address is forgotten. Only the player who left can, and a fellow
// player cannot pose as it (protocol 4): the secret never leaves its
// process; each other peer is given its own key, the first 16 bytes of
// HMAC-SHA256(secret, label, that peer's players), and keeps only its
// SHA-256, checked in constant time, so what one peer was given proves
// nothing to another (TestP2PSlotTheftWithTokenSecret). A request that
// proves nothing is refused (a RejoinError: wrong match id or secret) without changing
// anything (counted in Unknown, its refusals bounded: four per SyncRetry
// for all strangers), as is a request after the window
// (the window is over). A slot is never moved to a new address while its
// owner is heard (a valid packet from the slot's current address within
// NetConfig.DisconnectNotify, 750 ms by default), whatever the proof: the
// request is dropped unanswered (counted in Unknown), and the player
// asking from elsewhere is taken when its old address has been silent
// that long (TestP2PRebindRefusedWhileHeard). While a slot can be taken, the session lets
// strangers' rejoin requests through its transport (ExpectAnyone), and
// only those. Every peer agrees on a frame R
// (EventPlayerRejoining): the player's input stays the frozen one up to
// R-1 and is its live input from R (EventPlayerRejoined). The rejoining
// session starts over from the initial state and replays the match
// without drawing, from the confirmed inputs one peer (the sponsor) sends
// it in bursts from its archive: the sponsor needs
// Config.SpectatorArchive frames covering the match
// (refused otherwise). The other players never wait for it:
// R lies far enough ahead (the prediction window, half a second, and the
// replay's transfer time) that it is back before they reach it. See
// p2p_rejoin.go for the protocol.
//
// Late joiners work the same way: a match whose Config.Open lists open
// slots starts without their peers (their input is the zero input), and a
// session with Config.Join takes its slot at an agreed frame, without
// a token, from any address; from then on it holds the slot like any
// player (a stranger cannot take it, and it can rejoin with its own
// token). Until a joiner's keys arrive (its first Tokens, sent once it
// runs), it proves itself with a join proof derived from its secret,
// which every peer sees (the sponsor's At relays it): while its link is
// heard no one can use it, but during its catch-up a fellow player that
// kept it may take the slot of a joiner that has not played yet.
//
// # While a player is away
//
// Config.Absence chooses what a match does while a player is away (its
// peer disconnected). AbsencePredict (the default) plays on with its
// input frozen, as above. Under AbsenceFreeze, once the players' last
// frame is agreed, every peer also computes one stop frame P from the
// same reports (the most any of them heard of the player, plus the
// prediction window, plus one: no peer can have simulated P), simulates
// up to P-1 with the frozen input (confirmed: no rollback) and returns
// ErrAwaiting from AdvanceFrame at P (EventPlayerAwaited; Awaited says
// who, where, since when). A rejoin is agreed at R = P and the peers
// resume when the player's first live input arrives, a one-way trip after
// it plays again (the rejoining peer plays once every peer's live inputs
// reached it, so their handshakes with it are complete); when its rejoin
// window passes, each peer drops it (EventPlayerDropped) and plays on as
// under AbsencePredict. Under AbsenceForfeit the peers stop at P for good
// (ErrForfeited, EventPlayerForfeited), holding the same state, and the
// player may not rejoin (refused: the match stopped). A tick that waits
// allocates nothing. Spectators follow: they only get confirmed frames.
// Every player peer must choose the same policy (it is in the settings
// hash; another is refused at the handshake: settings differ). See
// absence.go.
//
// # Spectators who join late
//
// A Spectator replays the match from frame 0. One that joined late (with
// AddSpectator, from the host's archive) or fell far behind is fed in
// bulk by its host, the same feed a rejoining player gets (feed.go: up to
// 16 datagrams of 128 frames a tick within 1 MB/s, at most 4096 frames in
// flight, go-back-N), and while CatchingUp (more than 32 frames Behind)
// AdvanceFrame simulates up to SpectatorConfig.FastForward frames a call
// (default 2048), which the game should not draw: show Behind, the frames
// to go. The feed goes through the transport's bulk path when it has one
// (webrtc.Transport.SendBulk, which queues deeper than Send and says what
// it dropped). A spectator joining a two-player match 36,000 frames (10
// minutes) in is live in about 1 s over a 40 ms round trip, 2 s over
// 100 ms (TestSpectatorFeedTimes), 0.4 s over loopback WebRTC. One within
// 256 frames (for small inputs; two Inputs' worth) gets the live stream:
// every frame it has not acknowledged, every tick, in up to 2 Inputs, so
// that one cut off for a few seconds on a lossy link is live again a
// one-way trip after the cut ends (0.25 s over 200 ms and 10% loss after
// 1.5 s cut off, TestSpectatorPartitionLossy).
//
// What a spectator may cost its host: a spectator's acknowledgement may
// move back 64 frames (a late datagram), or undo its last move forward (a
// forged ack healing); further back it asks for frames it held, a
// restart of the feed, which it may do 3 times a minute (more are ignored,
// counted Malformed), and a restart gets no fresh burst: the feed's budget
// (1 MB/s, 16 full packets banked) carries over. A spectator of a
// two-player match 36,000 frames long that resets its ack to frame 1 each
// time it is nearly live costs 14 kB/s (an honest one 1.5 kB/s; 60 kB/s
// before these bounds), TestSpectatorAckReset. On the live stream a
// spectator costs at most 2 Inputs a tick whatever it acknowledges: one
// that holds its ack 250 frames behind gets 33 kB/s of a two-player match
// (TestSpectatorLiveCost; at most 2 full packets a tick, 144 kB/s). A
// forger who sends two high acks between every two of the spectator's can
// use its 3 restarts and stall it for up to a minute.
//
// # Recordings and desync forensics
//
// P2P sessions and spectators record themselves into a replay.Recorder
// (SetRecorder); package replay holds the format, the Replayer and the
// state files. KeepStates (a debug mode) keeps the states of a session's
// last checksummed frames, so that the frame of an EventDesyncDetected can
// be examined: replay.WriteState and replay.ReadState carry it to the
// other peer's machine and replay.DescribeDesync names the fields that
// differ.
package p2p
