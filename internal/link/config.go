package link

import (
	"crypto/rand"
	"encoding/binary"
	"hash/fnv"
	"time"

	"github.com/rollnet/rollnet"
)

// Settings is a NetConfig with the defaults applied, durations in
// nanoseconds.
type Settings struct {
	FrameRate, CheckInterval, Rounds, Window, MinWait int
	SyncRetry, SyncTimeout, KeepAlive, Quality        int64
	Notify, Timeout                                   int64
	Rejoin                                            int64  // RejoinWindow; negative never
	Game                                              uint64 // NetConfig.Settings
	Now                                               func() time.Time
	Rand                                              func() uint64
}

// MaxAdvSamples bounds NetConfig.TimeSyncWindow.
const MaxAdvSamples = 128

// DefaultRejoinWindow is the RejoinWindow a zero NetConfig.RejoinWindow
// means: how long after its disconnection a player may come back.
const DefaultRejoinWindow = 60 * time.Second

// Resolve applies c's defaults and checks the ranges; the error is a
// *ConfigError.
func Resolve(c rollnet.NetConfig) (Settings, error) {
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
		CheckInterval: def(c.ChecksumInterval, 10),
		Rounds:        def(c.Tuning.SyncRoundTrips, 5),
		Window:        def(c.Tuning.TimeSyncWindow, 30),
		MinWait:       def(c.Tuning.MinWait, 3),
		SyncRetry:     dur(c.Tuning.SyncRetry, 200*time.Millisecond),
		SyncTimeout:   dur(c.SyncTimeout, 10*time.Second),
		KeepAlive:     dur(c.KeepAlive, 200*time.Millisecond),
		Quality:       dur(c.Tuning.QualityInterval, 200*time.Millisecond),
		Notify:        dur(c.DisconnectNotify, 750*time.Millisecond),
		Timeout:       dur(c.DisconnectTimeout, 5*time.Second),
		Rejoin:        dur(c.RejoinWindow, DefaultRejoinWindow),
		Game:          c.Settings,
		Now:           c.Now,
		Rand:          c.Tuning.Rand,
	}
	switch {
	case n.FrameRate < 1 || n.FrameRate > 1000:
		return n, configError("FrameRate %d not in [1, 1000]", c.FrameRate)
	case n.Rounds < 1 || n.Rounds > 100:
		return n, configError("SyncRoundTrips %d not in [1, 100]", c.Tuning.SyncRoundTrips)
	case n.Window < 1 || n.Window > MaxAdvSamples:
		return n, configError("TimeSyncWindow %d not in [1, %d]", c.Tuning.TimeSyncWindow, MaxAdvSamples)
	case n.MinWait < 1:
		return n, configError("MinWait %d < 1", c.Tuning.MinWait)
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
