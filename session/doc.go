// Package session is rollnet's rollback session: the core session (no
// network in it), the sync test that proves a simulation deterministic,
// and, built on the core, the P2P protocol session and spectators.
//
// # The core session
//
// A Session advances a state S one frame per AdvanceFrame with simulate(s, inputs,
// frame), where inputs holds every player's input for the frame: the
// confirmed one where it has arrived (AddLocalInput, AddRemoteInput), a
// prediction where it has not. Predictions are remembered. An input that
// arrives late and contradicts a prediction already simulated marks the
// frame; the next AdvanceFrame rolls the state back once, to just before the
// earliest wrong frame, re-simulates to the present with what is now
// known, then simulates the new frame. However many late inputs arrive
// between two AdvanceFrame calls, there is at most one rollback per AdvanceFrame.
//
// Let W = Capacity-1-InputDelay, the redo window. The contract, exactly:
//
//   - Genesis: the first AdvanceFrame (and the first after Reset) commits the state
//     as it stands before frame 0, so frame 0 can be rolled back; whatever
//     the caller wrote into State() before it is covered.
//   - Input delay: AddLocalInput is for frame Frame()+InputDelay. Frames
//     [0, InputDelay) have the zero input, confirmed, for every player on
//     every peer, so ConfirmedFrame() starts at InputDelay-1.
//   - Remote inputs are accepted for frames Frame()-W through
//     Frame()+InputDelay+MaxPrediction. Older ones are stale: ignored and
//     counted (checked before duplicate or conflict). Newer ones are
//     ErrOutOfWindow. A duplicate of a confirmed input does nothing; a
//     different value is a desync (ErrConflict, OnDesync), never a
//     rollback, and the first value stays.
//   - A local input given again for the same frame before that frame is
//     simulated replaces the old one.
//   - A missing input is predicted from the input confirmed for the nearest
//     earlier frame (by frame number, not arrival), or the zero value;
//     Config.Predict may refine it.
//   - AdvanceFrame refuses (ErrPredictionLimit, nothing changed) when Frame() is
//     more than MaxPrediction frames past ConfirmedFrame(). Lockstep means
//     MaxPrediction 0: no prediction at all.
//   - ChecksumAt and StateAt answer for committed states still held; peers
//     compare at min(ConfirmedFrame(), Frame()-1), after AdvanceFrame.
//
// AdvanceFrame, AddLocalInput, AddRemoteInput, rollbacks of any depth, PackInputs
// and UnpackInputs allocate nothing (error returns aside).
//
// # Types
//
// S and I must be pointer-free and gap-free, made of fixed-width fields
// (see rollback.CheckType): their bytes are what is committed, checksummed
// and, for inputs, sent. Checksums and input bytes are those of the
// platform's memory layout, little-endian on every platform rollnet
// targets.
//
// # Determinism, for Go
//
// Every peer must compute bit-identical states from identical inputs, and
// the sync test (NewSyncTest) checks that the simulation does by
// re-simulating every frame and comparing checksums. In Go that means:
//
//   - Use integer or fixed-point math for anything that must agree across
//     machines. Floats are deterministic for +, -, *, / and sqrt under IEEE
//     754, but not the math package's transcendental functions across
//     architectures, and not expressions the compiler may fuse.
//   - Go's spec allows the compiler to fuse x*y + z into one fused
//     multiply-add (one rounding instead of two), and it does on arm64,
//     ppc64le, s390x and riscv64 (and amd64 built with GOAMD64=v3), so two
//     peers on different machines can diverge. An explicit conversion
//     forces the rounding and stops the fusion: write float64(x*y) + z.
//   - Never range over a map: its iteration order is randomized on every
//     range. Iterate a slice or array of keys in a fixed order.
//   - No wall clock (time.Now), no global random numbers (math/rand): use
//     Rand, whose state lives in S and is rolled back with it.
//   - No goroutines, no reading of anything outside S, inputs and frame;
//     no global counters or caches that survive a rollback.
//   - int, uint and uintptr are refused in S: their width differs between
//     32- and 64-bit peers. Use int32 or int64.
//
// cmd/rollnet-vet checks all of these before the game runs: it finds the
// simulate functions given to the constructors (and those marked
// //rollnet:simulate) and everything they call, and reports each broken
// rule at its line, the state type included (go run
// github.com/rollnet/rollnet/cmd/rollnet-vet ./..., or as go vet
// -vettool). Package fixed is the integer math to use instead of floats:
// Q32.32 numbers and vectors with Sqrt, Sin, Cos, Atan2 and Hypot, the same
// bits on every architecture.
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
// What a game does with it is its choice; the session keeps running.
// Common recoveries: end the match and say so (the simplest); or restart
// from one peer's state: both stop, one sends the other its state at a
// frame both confirmed (StateAt(Agreed) while the history holds it, else
// its newest confirmed state), and both start a new P2P whose initial
// state (written through State() before the first frame) is that state;
// and in development, log both checksums and the inputs (PackInputs) and
// replay them under the sync test to find the non-deterministic code.
//
// # A dropped player comes back
//
// A player peer that dropped (a network change, a sleep, a crash) can come
// back within NetConfig.RejoinWindow (0 means 60 s) of its disconnection:
// in the same process with P2P.Rejoin on a new transport, or in a new one
// with P2PConfig.Rejoin set to the token RejoinToken returned before (the
// match id and this player's secret; the id is known once every peer is
// synchronized), with the same settings either way. A player is its
// secret, not its address: it may come back from a new one (a restarted
// process's new signaling id, a phone that moved to mobile data), which
// every peer then knows it by (EventPlayerRejoined.Peer, PeerStats); its
// old address is forgotten. Only the player who left can, and a fellow
// player cannot pose as it (P2P protocol 4): the secret never leaves its
// process; each other peer is given its own key, the first 16 bytes of
// HMAC-SHA256(secret, label, that peer's players), and keeps only its
// SHA-256, checked in constant time, so what one peer was given proves
// nothing to another (TestP2PSlotTheftWithTokenSecret). A request that
// proves nothing is refused (ReasonRejoinIdentity) without changing
// anything (counted in Unknown, its refusals bounded: four per SyncRetry
// for all strangers), as is a request after the window
// (ReasonRejoinWindow). A slot is never moved to a new address while its
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
// P2PConfig.SpectatorArchive frames covering the match
// (ReasonRejoinArchive otherwise). The other players never wait for it:
// R lies far enough ahead (the prediction window, half a second, and the
// replay's transfer time) that it is back before they reach it. See
// p2p_rejoin.go for the protocol.
//
// Late joiners work the same way: a match whose P2PConfig.Open lists open
// slots starts without their peers (their input is the zero input), and a
// session with P2PConfig.Join takes its slot at an agreed frame, without
// a token, from any address; from then on it holds the slot like any
// player (a stranger cannot take it, and it can rejoin with its own
// token). Until a joiner's keys arrive (its first Tokens, sent once it
// runs), it proves itself with a join proof derived from its secret,
// which every peer sees (the sponsor's At relays it): while its link is
// heard no one can use it, but during its catch-up a fellow player that
// kept it may take the slot of a joiner that has not played yet.
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
// # Sync test
//
// NewSyncTest wraps a Session: after every frame it rolls back
// CheckDistance frames and re-simulates them with the same inputs,
// returning a *DesyncError when a checksum differs. Run a game's
// simulation under it in tests. A desync found in a match instead (see
// Desyncs in a match) is turned into a recovery by the game: end the
// match, or restart from one peer's confirmed state; replaying the match's
// inputs under the sync test then finds the code that is not
// deterministic.
//
// # Plain packing
//
// PackInputs and UnpackInputs carry inputs in codec's plain packing for
// users who run their own protocol: the last N frames ending at a base
// frame, every player's slot present, a mask saying which mean something.
// Sending N >= 2 frames per packet makes one lost packet harmless.
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
package session
