// Package rollnet is rollback netcode for Go games. This package holds
// the words both of its modes share, so a game names a frame, reads an
// event or configures its link without caring which mode runs it:
//
//   - Frame numbers simulation steps; NoFrame is "no frame yet".
//   - Peer is a transport's name for a remote end (transport.Peer is it).
//   - Event and its EventKind constants are what a session, a spectator,
//     an authoritative host or client reports to the game (their Events
//     method drains them).
//   - NetConfig configures the per-peer link (handshake, keep-alive,
//     round-trip time, disconnection, checksums, time sync, rejoin window);
//     the zero value of every field is its documented default.
//   - PeerStats is what one end sees of one remote end.
//   - SyncError and ErrSyncFailed say why a handshake failed.
//   - Rand is a deterministic PRNG whose state lives inside the game
//     state, so it rolls back with it.
//
// The modes live in their own packages: session (the core rollback engine
// and the peer-to-peer protocol, with spectators and rejoin), authority
// (one host simulates, clients predict and reconcile), replay (recordings
// and desync forensics). The README's "Choosing a mode" puts their verbs
// side by side.
//
// This package imports nothing else of rollnet's; every other package may
// import it.
package rollnet
