package pacing

import (
	"fmt"
	"math"
	"time"

	"github.com/rollnet/rollnet/playout"
)

// Defaults of ClockConfig.
const (
	// DefaultDelay is the render delay a zero ClockConfig.Delay means, in
	// frames behind the newest host frame.
	DefaultDelay = 3.0
	// DefaultMaxRate is the bound on the clock's rate a zero
	// ClockConfig.MaxRate means: it runs between 0.9 and 1.1 times real
	// time.
	DefaultMaxRate = 0.10
	// DefaultGain is the rate change per frame of error a zero
	// ClockConfig.Gain means: one frame behind runs 5% fast.
	DefaultGain = 0.05
	// DefaultResync is the error a zero ClockConfig.Resync means, in
	// frames, beyond which the clock re-anchors instead of steering.
	DefaultResync = 60.0
)

// Clock is the interpolation clock: one render time T per drawn frame, in
// host frames (fractional), for entities drawn in the past. It starts once
// a whole Delay of frames has been observed, at the newest frame minus the
// delay; from then on it free-runs on the frame time the caller passes and
// is steered by rate, within ±MaxRate, toward Delay behind the stream (the
// newest frame observed plus the time since it was observed). It never snaps
// while steering; only an error beyond Resync frames re-anchors it.
//
// Observe takes declared frame numbers (what the host stamped), never
// arrival times, so the stream decides what is drawn. Feed it the frames the
// paced Queue applies and the drawn motion is as steady as the ticks.
//
// A Clock is not safe for concurrent use. Its methods never allocate.
type Clock struct {
	cfg      playout.ClockConfig
	step     float64 // ns per frame
	have     bool    // a frame has been observed
	started  bool
	first    int32
	newest   int32
	since    float64 // frames of time since newest was observed
	t        float64
	rate     float64
	resyncs  int64
	observed int64
}

// NewClock returns a Clock that has observed nothing.
func NewClock(cfg playout.ClockConfig) (*Clock, error) {
	if err := checkStep(&cfg.Step); err != nil {
		return nil, err
	}
	if cfg.Delay == 0 {
		cfg.Delay = DefaultDelay
	}
	if !(cfg.Delay >= 0.5 && cfg.Delay <= 600) {
		return nil, fmt.Errorf("%w: Delay %v not in [0.5, 600]", errConfig, cfg.Delay)
	}
	if err := checkFraction("MaxRate", &cfg.MaxRate, DefaultMaxRate, 0.5); err != nil {
		return nil, err
	}
	if err := checkFraction("Gain", &cfg.Gain, DefaultGain, 1); err != nil {
		return nil, err
	}
	if cfg.Resync == 0 {
		cfg.Resync = max(DefaultResync, 2*cfg.Delay)
	}
	if !(cfg.Resync >= 2*cfg.Delay && cfg.Resync <= 1e6) {
		return nil, fmt.Errorf("%w: Resync %v not in [2×Delay = %v, 1e6]", errConfig, cfg.Resync, 2*cfg.Delay)
	}
	return &Clock{cfg: cfg, step: float64(cfg.Step), rate: 1}, nil
}

// Config returns the configuration in force, defaults filled in.
func (c *Clock) Config() playout.ClockConfig { return c.cfg }

// Observe notes a host frame that is now available to draw from, as of
// now. It is ObserveAt(frame, 0).
func (c *Clock) Observe(frame int32) { c.ObserveAt(frame, 0) }

// ObserveAt notes a host frame that is now available to draw from and has
// been the newest for age already: a client that applies frames on its
// fixed steps passes Timestep.Pending, the time since the step that
// applied it opened, so the stream's present is read at the step's phase
// and not at whichever drawn frame happened to run the step. A frame newer
// than the newest observed moves the stream; an older one (reordered,
// duplicated, a stall's late state) changes nothing. The clock starts at
// the first observation that makes a whole delay available. A negative age
// counts as zero.
func (c *Clock) ObserveAt(frame int32, age time.Duration) {
	c.observed++
	since := float64(max(age, 0)) / c.step
	if !c.have {
		c.have, c.first, c.newest, c.since = true, frame, frame, since
	} else if frame > c.newest {
		c.newest, c.since = frame, since
	}
	if !c.started && float64(c.newest)-float64(c.first) >= c.cfg.Delay {
		c.started = true
		c.t = c.target()
		c.rate = 1
	}
}

// Advance moves the clock by one drawn frame's duration and returns the
// render time T; ok is false until the clock has started. A zero or
// negative duration leaves T where it is.
func (c *Clock) Advance(dt time.Duration) (t float64, ok bool) {
	if dt > 0 && c.have {
		f := float64(dt) / c.step
		c.since += f
		if c.started {
			e := c.target() - (c.t + f) // the error left running at rate 1
			if math.Abs(e) > c.cfg.Resync || f > c.cfg.Resync {
				c.t = c.target()
				c.rate = 1
				c.resyncs++
			} else {
				c.rate = 1 + min(max(e*c.cfg.Gain, -c.cfg.MaxRate), c.cfg.MaxRate)
				c.t += f * c.rate
			}
		}
	}
	return c.t, c.started
}

// target is where the clock steers: Delay behind the stream's present.
func (c *Clock) target() float64 { return float64(c.newest) + c.since - c.cfg.Delay }

// T returns the render time; ok is false until the clock has started.
func (c *Clock) T() (t float64, ok bool) { return c.t, c.started }

// Rate returns the rate the last Advance ran at (1 before the clock starts).
func (c *Clock) Rate() float64 { return c.rate }

// Error returns how many frames the clock is behind where it steers to
// (negative: ahead). Zero before it starts.
func (c *Clock) Error() float64 {
	if !c.started {
		return 0
	}
	return c.target() - c.t
}

// Newest returns the newest frame observed; ok is false before any.
func (c *Clock) Newest() (frame int32, ok bool) { return c.newest, c.have }

// Delay returns the render delay in force, in frames.
func (c *Clock) Delay() float64 { return c.cfg.Delay }

// SetDelay changes the render delay; the clock glides to it by rate. It
// returns ErrNotFinite or ErrConfig (and changes nothing) for a delay that
// is not in [0.5, Resync/2].
func (c *Clock) SetDelay(frames float64) error {
	if math.IsNaN(frames) || math.IsInf(frames, 0) {
		return fmt.Errorf("%w: delay %v", playout.ErrNotFinite, frames)
	}
	if frames < 0.5 || frames > c.cfg.Resync/2 {
		return fmt.Errorf("%w: delay %v not in [0.5, Resync/2 = %v]", errConfig, frames, c.cfg.Resync/2)
	}
	c.cfg.Delay = frames
	return nil
}

// Resyncs counts re-anchorings: errors beyond Resync frames.
func (c *Clock) Resyncs() int64 { return c.resyncs }

// Reset forgets the stream: the clock starts again once a whole delay of
// new frames is observed. Call it when the playout's timeline is lost.
func (c *Clock) Reset() {
	c.have, c.started, c.since, c.t, c.rate = false, false, 0, 0, 1
}
