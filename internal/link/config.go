package link

import (
	"crypto/rand"
	"encoding/binary"
	"hash/fnv"
	"time"
)

// NetConfig holds the settings of every link of an endpoint. The zero
// value of every field means its documented default.
type NetConfig struct {
	// FrameRate is the game's frames per second, for time sync and the
	// settings hash; 0 means 60.
	FrameRate int
	// ChecksumInterval is how many frames apart confirmed states are
	// checksummed and compared with every peer; 0 means 60, negative never.
	ChecksumInterval int
	// SyncRoundTrips is how many handshake round trips must succeed; 0
	// means 5.
	SyncRoundTrips int
	// SyncRetry is how long a handshake request waits for its reply before
	// it is sent again; 0 means 200 ms.
	SyncRetry time.Duration
	// SyncTimeout is how long a link's handshake may run without
	// completing, counted from its first request (for a link added during
	// the match, such as a spectator added with AddSpectator, from the
	// first poll after it was added); 0 means 10 s. Then the link fails
	// with ReasonTimeout: a SyncFailed event and, for a link its owner
	// cannot play without (a player peer, a spectator's host), a
	// *SyncError from AdvanceFrame. An optional link (a spectator at its
	// host) only reports the event.
	SyncTimeout time.Duration
	// KeepAlive is the longest a peer goes without a packet from us; 0
	// means 200 ms.
	KeepAlive time.Duration
	// QualityInterval is how often frame advantage and a timestamp (for the
	// round-trip time) are reported to each peer; 0 means 200 ms.
	QualityInterval time.Duration
	// DisconnectNotify is how long a peer may be silent before
	// EventNetworkInterrupted; 0 means 750 ms.
	DisconnectNotify time.Duration
	// DisconnectTimeout is how long a peer may be silent before it is
	// disconnected; 0 means 5 s.
	DisconnectTimeout time.Duration
	// TimeSyncWindow is how many frames of frame-advantage samples are
	// averaged for a wait recommendation; 0 means 30.
	TimeSyncWindow int
	// MinWait is the smallest wait worth recommending, in frames; 0 means 3.
	MinWait int
	// Settings is the game's own hash of anything peers must agree on (a
	// game version, a map, a rule set); it is mixed into the handshake's
	// settings hash, so a mismatch fails the handshake.
	Settings uint64
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Rand returns random 64-bit handshake nonces; nil means crypto/rand.
	// Tests pass a seeded source.
	Rand func() uint64
}

// Settings is a NetConfig with the defaults applied, durations in
// nanoseconds.
type Settings struct {
	FrameRate, CheckInterval, Rounds, Window, MinWait int
	SyncRetry, SyncTimeout, KeepAlive, Quality        int64
	Notify, Timeout                                   int64
	Game                                              uint64 // NetConfig.Settings
	Now                                               func() time.Time
	Rand                                              func() uint64
}

// MaxAdvSamples bounds NetConfig.TimeSyncWindow.
const MaxAdvSamples = 128

// Resolve applies the defaults and checks the ranges; the error is a
// *ConfigError.
func (c NetConfig) Resolve() (Settings, error) {
	def := func(v, d int) int {
		if v == 0 {
			return d
		}
		return v
	}
	dur := func(v, d time.Duration) int64 {
		if v == 0 {
			return int64(d)
		}
		return int64(v)
	}
	n := Settings{
		FrameRate:     def(c.FrameRate, 60),
		CheckInterval: def(c.ChecksumInterval, 60),
		Rounds:        def(c.SyncRoundTrips, 5),
		Window:        def(c.TimeSyncWindow, 30),
		MinWait:       def(c.MinWait, 3),
		SyncRetry:     dur(c.SyncRetry, 200*time.Millisecond),
		SyncTimeout:   dur(c.SyncTimeout, 10*time.Second),
		KeepAlive:     dur(c.KeepAlive, 200*time.Millisecond),
		Quality:       dur(c.QualityInterval, 200*time.Millisecond),
		Notify:        dur(c.DisconnectNotify, 750*time.Millisecond),
		Timeout:       dur(c.DisconnectTimeout, 5*time.Second),
		Game:          c.Settings,
		Now:           c.Now,
		Rand:          c.Rand,
	}
	switch {
	case n.FrameRate < 1 || n.FrameRate > 1000:
		return n, configError("FrameRate %d not in [1, 1000]", c.FrameRate)
	case n.Rounds < 1 || n.Rounds > 100:
		return n, configError("SyncRoundTrips %d not in [1, 100]", c.SyncRoundTrips)
	case n.Window < 1 || n.Window > MaxAdvSamples:
		return n, configError("TimeSyncWindow %d not in [1, %d]", c.TimeSyncWindow, MaxAdvSamples)
	case n.MinWait < 1:
		return n, configError("MinWait %d < 1", c.MinWait)
	case n.SyncRetry < 0 || n.SyncTimeout < 0 || n.KeepAlive < 0 || n.Quality < 0 || n.Notify < 0 || n.Timeout < 0:
		return n, configError("negative duration")
	case n.Notify > n.Timeout:
		return n, configError("DisconnectNotify %v after DisconnectTimeout %v", time.Duration(n.Notify), time.Duration(n.Timeout))
	}
	if n.Now == nil {
		n.Now = time.Now
	}
	if n.Rand == nil {
		n.Rand = cryptoRand
	}
	return n, nil
}

func cryptoRand() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// SettingsHash hashes the words both ends of a link must agree on (the
// owner's protocol version, its players, input size, frame rate, game
// settings, who holds what...). Each end computes the hash it sends (its
// own view) and the one it expects (the other's view); see Link.Offer.
func SettingsHash(words ...uint64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, w := range words {
		binary.LittleEndian.PutUint64(b[:], w)
		_, _ = h.Write(b[:])
	}
	return h.Sum64()
}
