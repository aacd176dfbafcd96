package playout

import (
	"fmt"
	"math"
	"time"
)

// DefaultStep is the fixed step a zero Step field means: 60 Hz.
const DefaultStep = time.Second / 60

// Defaults of TimestepConfig.
const (
	// defaultMaxSteps is the cap on steps per Advance a zero
	// TimestepConfig.MaxSteps means: 250 ms of simulation at 60 Hz.
	defaultMaxSteps = 15
	// defaultMaxScale is the bound on time dilation a zero
	// TimestepConfig.MaxScale means: the scale stays in [0.9, 1.1].
	defaultMaxScale = 0.10
)

// TimestepConfig configures a Timestep. The zero value of every field means
// its documented default.
type TimestepConfig struct {
	// Step is the fixed simulation step, which is the network tick.
	// Zero means DefaultStep. Range [1µs, 1s].
	Step time.Duration
	// MaxSteps caps the steps one Advance returns, so a process that stalled
	// catches up by at most this many steps and drops the rest of the time
	// (counted by Dropped) instead of spiralling. Zero means 15 (250 ms
	// at 60 Hz). Range [1, 1000].
	MaxSteps int
	// MaxScale bounds the time scale: SetScale clamps to
	// [1-MaxScale, 1+MaxScale]. Zero means 0.10. Range (0, 0.5].
	MaxScale float64
}

// Timestep turns variable frame time into whole fixed steps and an alpha
// for drawing between the last two. A time scale dilates the cadence: frame
// time is multiplied by it on its way into the accumulator, so a scale of
// 1.05 runs steps 5% more often; no step is ever skipped or doubled to do it.
// It reads no clock: the caller passes each frame's duration.
//
// A Timestep is not safe for concurrent use. Its methods never allocate.
type Timestep struct {
	step     time.Duration
	maxSteps int
	maxScale float64
	scale    float64
	acc      time.Duration // scaled time not yet stepped, in [0, step)
	steps    int64
	dropped  time.Duration
}

// NewTimestep returns a Timestep with an empty accumulator and a scale of 1.
func NewTimestep(cfg TimestepConfig) (*Timestep, error) {
	if err := checkStep(&cfg.Step); err != nil {
		return nil, err
	}
	if cfg.MaxSteps == 0 {
		cfg.MaxSteps = defaultMaxSteps
	}
	if cfg.MaxSteps < 1 || cfg.MaxSteps > 1000 {
		return nil, fmt.Errorf("%w: MaxSteps %d not in [1, 1000]", errConfig, cfg.MaxSteps)
	}
	if err := checkFraction("MaxScale", &cfg.MaxScale, defaultMaxScale, 0.5); err != nil {
		return nil, err
	}
	return &Timestep{step: cfg.Step, maxSteps: cfg.MaxSteps, maxScale: cfg.MaxScale, scale: 1}, nil
}

// Advance adds one frame's duration, multiplied by the time scale, and
// returns how many whole steps the caller runs now, at most MaxSteps. Whole
// steps past the cap are dropped and counted by Dropped; the phase within a
// step is kept. A zero or negative frame time adds nothing; a huge one
// cannot overflow.
func (t *Timestep) Advance(frame time.Duration) int {
	if frame <= 0 {
		return 0
	}
	step := float64(t.step)
	total := float64(t.acc) + float64(frame)*t.scale
	steps := math.Floor(total / step)
	rem := min(max(total-steps*step, 0), step-1)
	n := t.maxSteps
	if steps < float64(n) {
		n = int(steps)
	} else {
		t.dropped = satAdd(t.dropped, time.Duration(min((steps-float64(n))*step, math.MaxInt64/2)))
	}
	t.acc = time.Duration(rem)
	t.steps += int64(n)
	return n
}

// Alpha is how far the accumulator is into the next step, in [0, 1): draw
// the world blended this far from the state before the last step to the
// state after it.
func (t *Timestep) Alpha() float64 { return float64(t.acc) / float64(t.step) }

// SetScale sets the time scale, clamped to [1-MaxScale, 1+MaxScale]: a
// dilation asking for more than the bound gets the bound. It returns
// ErrNotFinite for NaN or an infinity and leaves the scale unchanged.
func (t *Timestep) SetScale(s float64) error {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return ErrNotFinite // unwrapped: this path must not allocate
	}
	t.scale = min(max(s, 1-t.maxScale), 1+t.maxScale)
	return nil
}

// Scale returns the time scale in force.
func (t *Timestep) Scale() float64 { return t.scale }

// Step returns the fixed step.
func (t *Timestep) Step() time.Duration { return t.step }

// Steps returns how many steps Advance has returned in all.
func (t *Timestep) Steps() int64 { return t.steps }

// Pending returns the scaled time accumulated toward the next step.
func (t *Timestep) Pending() time.Duration { return t.acc }

// Dropped returns the scaled time the step cap refused: simulation time
// that never ran because a frame was longer than MaxSteps steps.
func (t *Timestep) Dropped() time.Duration { return t.dropped }

// Reset empties the accumulator, sets the scale to 1 and zeroes the counts.
func (t *Timestep) Reset() {
	t.acc, t.steps, t.dropped, t.scale = 0, 0, 0, 1
}

// satAdd adds two non-negative durations, saturating at the largest.
func satAdd(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
