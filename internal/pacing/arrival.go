package pacing

import (
	"fmt"
	"math"
	"time"
)

// Defaults of ArrivalConfig.
const (
	// DefaultSmoothing is the EWMA weight a zero ArrivalConfig.Smoothing
	// means.
	DefaultSmoothing = 1.0 / 16
	// DefaultArrivalWindow is the window a zero ArrivalConfig.Window means.
	DefaultArrivalWindow = 64
)

// ArrivalConfig configures an Arrival monitor. The zero value of every
// field means its documented default.
type ArrivalConfig struct {
	// Step is the duration of one declared frame. Zero means DefaultStep.
	// Range [1µs, 1s].
	Step time.Duration
	// Smoothing is each observation's EWMA weight. Zero means
	// DefaultSmoothing. Range (0, 1].
	Smoothing float64
	// Window is how many of the newest arrivals the baseline (the fastest
	// arrival relative to its declared frame) is taken over, so it follows
	// a drifting clock. Zero means DefaultArrivalWindow. Range [1, 4096].
	Window int
}

// Arrival measures how a stream of declared frames actually arrives: the
// send interval between declared frames (not between arrivals, which two
// packets in one poll make noise), each arrival's lateness relative to the
// fastest recent one, the mean deviation of that lateness (the jitter), and
// from them the render delay the stream needs. A constant one-way delay
// cancels out: the buffer covers irregularity, not delay. It reports; it
// never chooses the frame shown, and whether to adapt a delay to it is the
// caller's decision.
//
// An Arrival is not safe for concurrent use. Its methods never allocate.
type Arrival struct {
	cfg      ArrivalConfig
	raw      []float64 // ring: arrival minus declared time, ns
	next, n  int
	have     bool
	newest   int32
	forward  int64 // forward observations
	samples  int64
	interval float64 // frames
	late     float64 // ns
	jitter   float64 // ns
}

// NewArrival returns an Arrival monitor that has observed nothing.
func NewArrival(cfg ArrivalConfig) (*Arrival, error) {
	if err := checkStep(&cfg.Step); err != nil {
		return nil, err
	}
	if err := checkFraction("Smoothing", &cfg.Smoothing, DefaultSmoothing, 1); err != nil {
		return nil, err
	}
	if cfg.Window == 0 {
		cfg.Window = DefaultArrivalWindow
	}
	if cfg.Window < 1 || cfg.Window > 4096 {
		return nil, fmt.Errorf("%w: Window %d not in [1, 4096]", errConfig, cfg.Window)
	}
	return &Arrival{cfg: cfg, raw: make([]float64, cfg.Window)}, nil
}

// Observe notes that the state declared for frame arrived at local time at
// (any monotonic clock; only differences matter). Call it for every
// arrival, reordered or duplicated ones included: a frame older than the
// newest still updates lateness (being late is data) but never the
// interval, which is measured forward only.
func (a *Arrival) Observe(frame int32, at time.Duration) {
	a.samples++
	raw := float64(at) - float64(frame)*float64(a.cfg.Step)
	a.raw[a.next] = raw
	a.next = (a.next + 1) % len(a.raw)
	a.n = min(a.n+1, len(a.raw))
	base := math.Inf(1)
	for _, r := range a.raw[:a.n] {
		base = min(base, r)
	}
	w := a.cfg.Smoothing
	late := raw - base
	if a.samples == 1 {
		a.late = late
	} else {
		a.jitter += w * (math.Abs(late-a.late) - a.jitter)
		a.late += w * (late - a.late)
	}
	if !a.have {
		a.have, a.newest = true, frame
		return
	}
	if frame > a.newest {
		gap := float64(int64(frame) - int64(a.newest))
		if a.forward == 0 {
			a.interval = gap
		} else {
			a.interval += w * (gap - a.interval)
		}
		a.forward++
		a.newest = frame
	}
}

// Interval returns the smoothed gap between declared frames, the send
// interval as it is (lost states widen it a little).
func (a *Arrival) Interval() time.Duration {
	return time.Duration(a.interval * float64(a.cfg.Step))
}

// Lateness returns the smoothed lateness of arrivals beyond the fastest
// recent one, relative to their declared frames.
func (a *Arrival) Lateness() time.Duration { return time.Duration(a.late) }

// Jitter returns the smoothed mean deviation of lateness: the irregularity
// a buffer exists to cover.
func (a *Arrival) Jitter() time.Duration { return time.Duration(a.jitter) }

// NeededDelay returns the render delay, behind the newest frame received,
// that this stream needs: lateness plus twice the jitter plus one interval,
// so two frames always bracket the time drawn.
func (a *Arrival) NeededDelay() time.Duration {
	return time.Duration(a.late + 2*a.jitter + a.interval*float64(a.cfg.Step))
}

// NeededFrames returns NeededDelay in frames, for Clock.SetDelay.
func (a *Arrival) NeededFrames() float64 {
	return float64(a.NeededDelay()) / float64(a.cfg.Step)
}

// WarmedUp reports whether two forward frames have been seen, so an
// interval exists and the readings mean something.
func (a *Arrival) WarmedUp() bool { return a.forward >= 1 }

// Samples returns how many arrivals were observed.
func (a *Arrival) Samples() int64 { return a.samples }

// Reset forgets every observation.
func (a *Arrival) Reset() {
	a.next, a.n, a.have, a.newest, a.forward, a.samples = 0, 0, false, 0, 0, 0
	a.interval, a.late, a.jitter = 0, 0, 0
}
