// Package authority is rollnet's server-authoritative mode: one Host runs
// the simulation that counts; Clients send inputs, predict the world, and
// are corrected by the host's states. It is for games whose peers are not
// trusted (ranked play, many players, late joiners). It is built on the same
// primitives as the P2P session: the core session (the host's simulation
// and its rollbacks), rollback's ring (the client's predicted frames),
// codec's messages and any transport.Transport.
//
// Contracts, as the P2P session's: S pointer-free and gap-free (checked at
// construction, at most 64 KiB), I comparable, pointer-free, at most 32
// bytes, without bools; simulate(*S, []I, Frame) deterministic (see package
// session on determinism in Go); time read from an injected clock; nothing
// allocated per tick at steady state; bytes from the network are hostile.
//
// # Host
//
// A Host is driven once per tick (AdvanceFrame). It holds LocalPlayers slots of
// its own (a listen server) or none (a dedicated host), and gives each
// client that says Hello SlotsPerClient slots; a client's inputs carry no
// slot numbers, so no client can move another's player. Each tick the host
//
//   - reads every waiting packet: inputs stamped with the frame they are
//     for are held up to InputAhead frames ahead; one for a frame already
//     simulated is late: applied at the current frame, in order, where the
//     client sent nothing of its own (LateApply), or rolled back for
//     within RollbackWindow frames by the core session (LateRollback).
//     Every late input is counted and accounted for: applied, or
//     superseded (dropped, counted apart) once it has waited
//     RollbackWindow frames while the client's own newer inputs held
//     every frame: the player has moved on, and a stale press replayed
//     now would act on a world that moved on too;
//   - simulates the frame with each slot's input, or a prediction (the
//     client's last, or HostConfig.Predict) where none came;
//   - sends each client (every StateInterval ticks) the state after the
//     frame and every player's input at the frame, both XORed with those
//     of a base and range coded: the newest state it acknowledged
//     (whole when it acknowledged none still kept), or, on a clean link,
//     the previous state sent it (a chain: each change goes once, where
//     coding against an acknowledgement sends a round trip of changes in
//     every state; a state lost breaks the chain for about a round trip
//     and sends the link back to acknowledgements; one that overtakes
//     its base waits at the client, four at most, until the base comes;
//     the chain starts again after a second without loss, longer after
//     each break); every eighth state (and
//     every whole one) the state's checksum and the last input frame of
//     its it holds; and time-dilation advice when it changed. The coded part
//     depends on the frame and the base alone: it is coded once a tick
//     per base the clients acknowledged and copied to each (a client's
//     bytes do not grow with the room while its players hold their
//     inputs; the host's cost per client falls as clients share bases).
//     A body longer than a datagram is
//     fragmented; a client's Nack resends each missing fragment once, and
//     at most three Nacks are answered per body. What a client may cost
//     is bounded by what it acknowledges: a full state waits for the
//     previous full one's acknowledgement, the gap doubling from one
//     frame to 128 while none comes (a client that acknowledges nothing
//     of a 16 KiB world costs about 5 KB/s, 20 KB/s with every Nack it
//     may send, where it cost 490 to 750 KB/s); and the bytes of states
//     and repairs a client is sent are budgeted, ClientBudget (256 KiB/s
//     by default, a second's burst): past it states wait
//     (StatesDeferred) and Nacks are refused.
//
// Time dilation: the host measures, at each frame it simulates, how many
// frames ahead each client's inputs run (a client with nothing new sends
// a frame marker) and advises a rate change, at most MaxRate (10%), that
// holds TargetDepth on the mean, deeper under jitter and stalls until the
// latest-arriving inputs are on time, and otherwise stays at the client
// clock's own rate (0 on one clock): every frame the client's lead moves
// is a frame its paced playout jumps or stalls.
//
// Settings: a Hello whose settings hash is not the host's (another game,
// frame rate, state or input size, players, or protocol) is refused with
// the host's settings, once a second per connection and at most
// MaxJoinsPerTick a tick, nothing held for it (HellosRefused,
// RefusalsSent); the client's AdvanceFrame then fails with a
// *SettingsError (ErrSettings) naming both sides', at once and on every
// call after, where protocol 2 left it unanswered forever.
//
// Verifying states: a client takes a state that carries no checksum
// coded against a baseline it holds; a checksum that matches verifies the
// state and the chain of baselines behind it. One that does not, coded
// against a state taken unverified, drops that state and every unverified
// one (StatesUnverified) and goes back to the newest verified: a state
// that was not the host's (a forgery, a bug) is found within eight states
// (133 ms at 60 Hz) and is never coded against again. A whole state the
// host had no cause to send (the client acknowledged a state still kept)
// is dropped: taken, the host's next states would be wrong.
//
// Connect and rejoin: a Hello with the right settings hash gets one answer
// per connection (sent HostTuning.WelcomeCopies times against loss): INITIAL_SYNC
// (slots and a random 128-bit rejoin token; the full state follows as
// states do), or, for a token still valid, RESUME_ACCEPT on the new
// connection (the client's world goes on; the inputs it made while cut
// off arrive late, its backlog, and are applied: in order, one a frame,
// before its newer inputs, which it displaces, counted; with
// RejoinBacklog: BacklogSupersede the newer inputs supersede the backlog
// instead). A client whose link times out (Net.DisconnectTimeout, or soon
// after its Close) is away, its slots predicted, and its connection let
// go of: a Hello with the token from the same address (a client that kept
// its socket through an outage) rejoins as one from a new address does.
// After Grace its token is void, and its Hello gets RESUME_REJECT then an
// INITIAL_SYNC of a fresh slot. A valid token from another connection
// while its owner is heard (silent less than Net.DisconnectNotify, 750 ms)
// gets no answer (RejoinsWhileHeard): the owner plays on. Once the owner
// is interrupted the token takes the slot over and the old connection is
// dropped, so a client whose address changed (a NAT rebinding, a network
// switch) rejoins within about that.
//
// A record that never saw a valid input is freed as soon as its connection
// goes, and, however alive its connection, JoinTimeout (5 s) after its
// Hello was answered; its address then gets no fresh slot for as long.
// One address (the host of "host:port", or the whole name) holds at most
// MaxClientsPerAddress (4) records. A client reads its token
// (Client.RejoinToken); a process started again gives the one it kept to
// its new client (ClientConfig.Rejoin), whose RESUME_ACCEPT
// brings the same slots and, the new connection having acknowledged
// nothing, a full state to start its world from.
//
// # Absence
//
// HostConfig.Absence says what the match does while a client's player is
// away (its connection silent for Net.DisconnectNotify, or gone).
// AbsencePredict plays on with its input predicted. Under AbsenceFreeze
// every state's advice carries, every fourth state, a lease: the frame a
// client may simulate up to (16 to 64 frames past the state, twice the
// furthest any client runs ahead of its host states plus 8). The first
// player away starts a hold at the furthest lease the host sent, a frame
// no client can have simulated: the host plays on to it and stops there,
// and tells every client each tick (a WelcomeHold: the stop, who is
// awaited, since when), which ClientStats shows (Awaiting, Awaited,
// HoldAt, HeldFor; HoldTicks apart from LeaseWaits, the network's). When
// the player is back (its connection heard again, or a rejoin with its
// token) or dropped (its Grace passed), the host sends a lease past the
// stop: every client simulates on at once (the returning one from the
// state the host sends it), and the host simulates the stop when every
// client's input for it is there, a round trip later, so nobody's
// inputs are late. AbsenceForfeit stops at the stop for good
// (HostStats.Forfeited, EventPlayerForfeited): every peer holds the
// host's state before it, and the game decides. Events: EventPlayerAwaited,
// EventPlayerRejoined, EventPlayerDropped, EventPlayerForfeited, with the
// player's first slot and the stop, on the host and every client. The
// host decides; clients follow what it says (the policy is not in the
// settings hash). Over 30 ± 5 ms with 3% loss and reordering, the
// clients resume 37 to 50 ms after the host takes a killed client's
// new process back, and the host simulates the stop 50 ms after that
// process plays again (TestHostAbsenceFreeze); a held tick allocates
// nothing.
//
// # Client
//
// A Client is driven once per tick (AdvanceFrame), after AddLocalInput. It
// predicts the whole world from the newest host state, with its own
// inputs and the others' as the host last reported them. A host state for
// frame F is compared with the client's own state at F: equal (byte for
// byte) costs nothing; different restores the host's F and re-simulates
// to the present, at most once per tick. So a client whose own simulation
// went wrong (a desync) is repaired by the host's next state: the host is
// the truth, and the client predicts every later state exactly again
// (TestClientRepairedByHost: five wrong frames over 60 ± 10 ms one way
// with 3% loss). State() is the predicted present
// (Previous() the step before, to blend at Alpha()); HostState() the newest
// host state.
//
// # Lag compensation
//
// A client draws what it does not control in the past (the render time T
// of Presentation), so a shot aimed at what it sees would miss on the
// host's present by about a round trip, the input's lead and the render
// delay (some 15 frames at 100 ms round trip: 257 ms). With
// NewHostLagComp and NewClientLagComp the simulate function gets a fourth
// argument, *Sights: Sights.Of(player) is the world as that player saw it
// when it made the frame's input (two host states and T, blended as
// Sight.Lerp does, exactly, in integers), or false (the present). Each
// client input carries its sight (the last DrawnAt, which Update does),
// about 4 bytes a message while the render clock runs steadily. The host
// bounds it: a sight older than MaxRewind (300 ms) behind the frame it
// acts at is moved up to the bound (SightsTooOld), one naming a state not
// sent the client down to the newest sent (SightsTooNew), one whose T
// jumps against the previous frame's is counted (SightJumps). The rewind
// is a lookup in the states the host keeps (64 frames): nothing is
// re-simulated and nothing allocated. The client predicts its own shots
// from its own sights (the others' are the host's to judge) and agrees
// with the host whenever it drew the host's states within the bound;
// otherwise the host's state corrects it, as any misprediction.
//
// # Presentation
//
// The obvious use is smooth: the game calls Update(dt) once per drawn frame,
// which runs the fixed step through a playout.Timestep at the host's advised
// rate (never a skipped or doubled step; AdvanceFrame is the step, for a game
// with its own loop). Host states enter a paced queue (at most one applied
// per step, playout.QueueConfig); a render clock gives one render time per
// drawn frame (RenderTime, playout.ClockConfig), its delay at least 3 frames
// and grown to what the stream's arrivals need; PlayoutAt(T) returns the two
// host states around T to
// draw entities the game does not control in the past. Over 45 ± 20 ms with
// 5% loss, drawn at 144 Hz on a 60 Hz step, that draws a host's entity
// with no hitch where applying states on arrival gives hundreds.
//
// Links (keep-alive, round-trip time, disconnect timers, byte counts) are
// internal/link's, as the P2P session's; Events reports theirs. Every
// payload packet (an input, a Nack, a state fragment) is validated, then
// must pass the link's one plausibility rule (link.Accept: a sequence
// number near the connection's anchor) before it acts, as the link's own
// messages do. Acknowledgements heal: the host takes a client's newest
// packet's, the client the newest state's, so a forged one is undone by
// the next real one; and only a state that verified moves the client's
// reassembly on, so a forged body number cannot make the host's look
// old. A client numbers every packet it sends, and the host remembers
// which numbers of a connection's inputs and Nacks it took (the whole
// plausible span): a copy, an on-path replayer's or the network's, is
// dropped unread (HostClientStats.Replayed), so replaying a client's old
// packets neither forces full states nor undoes their pacing, and costs
// the victim nothing past the link's own answers (a quality reply to a
// copied report). Nothing authenticates a
// packet: an attacker who can spoof the other end's address gets about
// one forgery in 32 through (a transport that authenticates, WebRTC's
// DTLS, closes that).
//
// # Wire
//
// codec's Hello, Welcome, AuthInput, StateFragment (carrying a StateBody)
// and Nack, protocol 7 (Protocol): the version is in the settings hash a
// Hello carries, and in the Hello itself, so a client of another version
// is refused at its Hello with the host's settings (a protocol-2 client,
// whose Hello ends before the version, cannot read the refusal, but the
// host counts and answers it, and holds nothing). Protocol 2 coded the
// players' inputs in a state body against the base like the state,
// dropped from the wire what both ends know (the sizes), sent the advice
// only when it changed (or every 30 frames), sent a body that fits one
// packet without its number, and allowed 256 players. Protocol 3 sends
// the checksum and the input acknowledgement every eighth state, codes
// the inputs and the state as one run without its trailing zeros, sends
// a whole body without a fragment count (a flag bit of its first byte
// tells it), the advice when the rate moved 0.5% (every 30 frames
// otherwise), and quality reports once a second by default: pong's host sends
// its client about 985 B/s all told, where protocol 2 sent about 1,480
// (bench's BenchmarkAuthorityPongBytes). A delta's frame travels as its
// low 16 bits (a long match's frames cost no third byte). Protocol 4 adds a client's
// sights to its inputs (lag compensation; a flag bit of the slots byte
// says they follow, so a client without them sends what protocol 3 did).
// Protocol 5 adds a lease to a state's advice (one byte, 0 under
// AbsencePredict) and the host's WelcomeHold (HostConfig.Absence): a
// protocol-4 client is refused at its Hello, as a protocol-3 one is.
// Protocol 6 range codes a state's inputs and delta (an adaptive model of
// a sparse delta, afresh in every body; raw, a few bytes over, when the
// model would cost more), where 3 to 5 run-length coded them: a changed
// byte costs about the logarithm of its distance from the previous one in
// bits and a few bits of value, where a run and a literal cost two or
// three bytes and the byte. A protocol-5 client is refused at its Hello.
// Protocol 7 codes a changed byte's position as a count of 4-byte words
// and the byte in its word (a game's state is mostly words whose low bytes
// change), decodes the bits at even odds by halving (no division), and
// marks a raw body by its first byte: bench's states are 7 to 20% smaller
// and a dense delta codes and decodes about 1.5x faster. A protocol-6
// client is refused at its Hello.
//
// # Scale
//
// Players is at most 256. In a world of 1024 entities of 16 bytes,
// eight moving a frame, the host's cost per client and tick is about
// 1.4 to 2.2 times copying the state and checksumming it once per client,
// at 16 to 256 clients (bench's BenchmarkAuthorityHostScale beside its
// baseline), with nothing allocated, and each client is sent about 2 KB/s
// whatever the room's size while its players hold their inputs
// (BenchmarkAuthorityStateBytesScale). While each player changes its
// input twice a second, a client is sent 1.25 times at 64 clients what it
// is at one (1,934 to 2,417 B/s): the room's changes are news, each
// change of the state and of a player's input sent once on a clean link,
// and each costs its position and value (about 3 bytes a press: the
// player's input and the world it moved), where the world's steady motion
// costs as much at one client as at 64.
package authority
