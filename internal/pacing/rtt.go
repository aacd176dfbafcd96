package pacing

import (
	"fmt"
	"time"
)

// Defaults of RTTConfig, RFC 6298's.
const (
	// DefaultRTTAlpha is the smoothing weight a zero RTTConfig.Alpha means.
	DefaultRTTAlpha = 1.0 / 8
	// DefaultRTTBeta is the deviation weight a zero RTTConfig.Beta means.
	DefaultRTTBeta = 1.0 / 4
	// DefaultMaxRTT is the longest sample a zero RTTConfig.Max means.
	DefaultMaxRTT = time.Minute
)

// RTTConfig configures an RTT estimator. The zero value of every field
// means its documented default.
type RTTConfig struct {
	// Alpha is each sample's weight in the smoothed round trip. Zero means
	// DefaultRTTAlpha. Range (0, 1].
	Alpha float64
	// Beta is each sample's weight in the mean deviation. Zero means
	// DefaultRTTBeta. Range (0, 1].
	Beta float64
	// Max is the longest sample taken as a measurement; longer ones are
	// refused. Zero means DefaultMaxRTT. Range [1ms, 1h].
	Max time.Duration
}

// RTT smooths round-trip samples the way RFC 6298 does: an exponentially
// weighted mean, the mean deviation from it, and the smallest sample seen
// (the best estimate of the path's delay, since queueing only adds). It
// sizes buffers and reports; it never chooses the frame shown.
//
// An RTT is not safe for concurrent use. Its methods never allocate.
type RTT struct {
	cfg      RTTConfig
	srtt     float64
	rttvar   float64
	min      time.Duration
	samples  int64
	rejected int64
}

// NewRTT returns an RTT estimator with no samples.
func NewRTT(cfg RTTConfig) (*RTT, error) {
	if err := checkFraction("Alpha", &cfg.Alpha, DefaultRTTAlpha, 1); err != nil {
		return nil, err
	}
	if err := checkFraction("Beta", &cfg.Beta, DefaultRTTBeta, 1); err != nil {
		return nil, err
	}
	if cfg.Max == 0 {
		cfg.Max = DefaultMaxRTT
	}
	if cfg.Max < time.Millisecond || cfg.Max > time.Hour {
		return nil, fmt.Errorf("%w: Max %v not in [1ms, 1h]", errConfig, cfg.Max)
	}
	return &RTT{cfg: cfg}, nil
}

// Observe takes one round-trip sample. A sample that is not positive or is
// longer than Max is counted as rejected and returns ErrSample.
func (r *RTT) Observe(sample time.Duration) error {
	if sample <= 0 || sample > r.cfg.Max {
		r.rejected++
		return ErrSample // unwrapped: this path must not allocate
	}
	x := float64(sample)
	if r.samples == 0 {
		r.srtt, r.rttvar, r.min = x, x/2, sample
	} else {
		d := r.srtt - x
		if d < 0 {
			d = -d
		}
		r.rttvar += r.cfg.Beta * (d - r.rttvar)
		r.srtt += r.cfg.Alpha * (x - r.srtt)
		r.min = min(r.min, sample)
	}
	r.samples++
	return nil
}

// Smoothed returns the smoothed round trip (RFC 6298's SRTT); zero before
// the first sample.
func (r *RTT) Smoothed() time.Duration { return time.Duration(r.srtt) }

// Deviation returns the mean deviation (RFC 6298's RTTVAR).
func (r *RTT) Deviation() time.Duration { return time.Duration(r.rttvar) }

// Min returns the smallest sample taken.
func (r *RTT) Min() time.Duration { return r.min }

// Timeout returns SRTT + 4×RTTVAR, RFC 6298's retransmission timeout
// before its one-second floor: how long a reply may take before it is late.
func (r *RTT) Timeout() time.Duration { return time.Duration(r.srtt + 4*r.rttvar) }

// Samples returns how many samples were taken.
func (r *RTT) Samples() int64 { return r.samples }

// Rejected returns how many samples were refused.
func (r *RTT) Rejected() int64 { return r.rejected }

// Reset forgets every sample.
func (r *RTT) Reset() { *r = RTT{cfg: r.cfg} }
