package playout

import (
	"math"
	"time"
)

// defaultDecay is the fraction a zero SmootherConfig.Decay means: a fifth of
// the visual offset goes per step, so half of it is gone in about three
// steps (50 ms at 60 Hz).
const defaultDecay = 0.2

// SmootherConfig configures a Smoother. The zero value of every field means
// its documented default.
type SmootherConfig struct {
	// Step is the duration the decay is stated per. Zero means
	// DefaultStep. Range [1µs, 1s].
	Step time.Duration
	// Decay is the fraction of the visual offset removed per Step, in
	// (0, 1]; 1 snaps every correction. Zero means 0.2: half of the offset
	// is gone in about three steps.
	Decay float64
}

// Vec is a position (or any additive quantity) in up to three dimensions;
// a 2D game leaves the third zero.
type Vec [3]float64

// Smoother hides a correction in what is drawn (rule 8): when a correction
// moves the logical state by a jump, the drawn entity keeps its place and
// the difference, a visual offset, decays by a fraction per step. It never
// touches the logical state, and a fraction (not a fixed-duration ease)
// finishes however often corrections arrive. Snap-versus-ease is the
// caller's choice by cause: Snap for a spawn or a teleport.
//
// A Smoother is not safe for concurrent use. Its methods never allocate.
type Smoother struct {
	cfg  SmootherConfig
	keep float64 // 1 - Decay
	off  Vec
	dt   time.Duration // the last Advance's duration, and
	k    float64       // what it kept: frames are mostly alike
}

// NewSmoother returns a Smoother with no offset.
func NewSmoother(cfg SmootherConfig) (*Smoother, error) {
	if err := checkStep(&cfg.Step); err != nil {
		return nil, err
	}
	if err := checkFraction("Decay", &cfg.Decay, defaultDecay, 1); err != nil {
		return nil, err
	}
	return &Smoother{cfg: cfg, keep: 1 - cfg.Decay}, nil
}

// Correct notes that a correction moved the logical state by jump (new
// minus old). What is drawn stays where it was this frame: the offset
// absorbs the jump and then decays. It returns ErrNotFinite, and changes
// nothing, for a NaN or infinite component.
func (s *Smoother) Correct(jump Vec) error {
	for _, v := range jump {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ErrNotFinite // unwrapped: this path must not allocate
		}
	}
	for i, v := range jump {
		s.off[i] -= v
	}
	if s.cfg.Decay == 1 {
		s.off = Vec{}
	}
	return nil
}

// Advance decays the offset by one drawn frame's duration: it keeps
// (1-Decay)^(dt/Step) of it. A zero or negative duration keeps it all; a
// huge one clears it.
func (s *Smoother) Advance(dt time.Duration) {
	if dt <= 0 || s.off == (Vec{}) {
		return
	}
	if dt != s.dt {
		s.dt, s.k = dt, math.Pow(s.keep, float64(dt)/float64(s.cfg.Step))
	}
	for i := range s.off {
		s.off[i] *= s.k
		if math.Abs(s.off[i]) < 1e-12 {
			s.off[i] = 0
		}
	}
}

// Snap drops the offset: the entity is drawn at its logical state from
// this frame on. For a discontinuity by cause (spawn, respawn, teleport).
func (s *Smoother) Snap() { s.off = Vec{} }

// Offset returns the visual offset to add to the logical state.
func (s *Smoother) Offset() Vec { return s.off }

// Draw returns where to draw an entity whose logical position is p.
func (s *Smoother) Draw(p Vec) Vec {
	for i := range p {
		p[i] += s.off[i]
	}
	return p
}

// Active reports whether an offset is left to decay.
func (s *Smoother) Active() bool { return s.off != (Vec{}) }
