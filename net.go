package rollnet

import "time"

// NetConfig holds the settings of every link of an endpoint. The zero
// value of every field means its documented default.
type NetConfig struct {
	// FrameRate is the game's frames per second, for time sync and the
	// settings hash; 0 means 60.
	FrameRate int
	// ChecksumInterval is how many frames apart confirmed states are
	// checksummed and compared with every peer; 0 means 10, negative never.
	// Both ends must use the same (it is in the settings hash).
	ChecksumInterval int
	// SyncTimeout is how long a link's handshake may run without
	// completing, counted from its first request (for a link added during
	// the match, such as a spectator added with AddSpectator, from the
	// first poll after it was added); 0 means 10 s. Then the link fails
	// (no handshake within the sync timeout): a SyncFailed event and, for a link its owner
	// cannot play without (a player peer, a spectator's host), a
	// *SyncError from AdvanceFrame. An optional link (a spectator at its
	// host) only reports the event.
	SyncTimeout time.Duration
	// KeepAlive is the longest a peer goes without a packet from us; 0
	// means 200 ms.
	KeepAlive time.Duration
	// DisconnectNotify is how long a peer may be silent before
	// EventNetworkInterrupted; 0 means 750 ms.
	DisconnectNotify time.Duration
	// DisconnectTimeout is how long a peer may be silent before it is
	// disconnected; 0 means 5 s.
	DisconnectTimeout time.Duration
	// RejoinWindow is how long after a player peer disconnected it may come
	// back into the match (p2p.Session.Rejoin, p2p.Config.Rejoin); 0 means 60 s,
	// negative never.
	RejoinWindow time.Duration
	// Settings is the game's own hash of anything peers must agree on (a
	// game version, a map, a rule set); it is mixed into the handshake's
	// settings hash, so a mismatch fails the handshake.
	Settings uint64
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Tuning holds the protocol's knobs; its zero value means the
	// defaults.
	Tuning NetTuning
}

// NetTuning holds the protocol's knobs, apart from what a game must
// decide in NetConfig (as pion keeps its SettingEngine apart from its
// Configuration). The zero value of every field means its default.
type NetTuning struct {
	// SyncRoundTrips is how many handshake round trips must succeed; 0
	// means 5.
	SyncRoundTrips int
	// SyncRetry is how long a handshake request waits for its reply before
	// it is sent again; 0 means 200 ms.
	SyncRetry time.Duration
	// QualityInterval is how often frame advantage and a timestamp (for the
	// round-trip time) are reported to each peer; 0 means 200 ms.
	QualityInterval time.Duration
	// TimeSyncWindow is how many frames of frame-advantage samples are
	// averaged for a wait recommendation; 0 means 30.
	TimeSyncWindow int
	// MinWait is the smallest wait worth recommending, in frames; 0 means 3.
	MinWait int
	// Rand returns random 64-bit handshake nonces; nil means crypto/rand.
	// Tests pass a seeded source.
	Rand func() uint64
}
