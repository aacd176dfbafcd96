// Package session is rollnet's rollback engine, with no network in it:
// the core session and the sync test that proves a simulation
// deterministic. Package p2p runs the P2P protocol on it, and package
// authority the authoritative mode.
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
// # Sync test
//
// NewSyncTest wraps a Session: after every frame it rolls back
// CheckDistance frames and re-simulates them with the same inputs,
// returning a *DesyncError when a checksum differs. Run a game's
// simulation under it in tests. A desync found in a match instead (see
// package p2p, Desyncs in a match) is repaired there: the diverged peer
// takes a peer's confirmed state and starts over from it with Rebase,
// which keeps the frame numbers and lets the inputs be given again;
// replaying the match's inputs under the sync test then finds the code
// that is not deterministic.
//
// # Plain packing
//
// PackInputs and UnpackInputs carry inputs in codec's plain packing for
// users who run their own protocol: the last N frames ending at a base
// frame, every player's slot present, a mask saying which mean something.
// Sending N >= 2 frames per packet makes one lost packet harmless.
package session
