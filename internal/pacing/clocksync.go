package pacing

import (
	"fmt"
	"time"
)

// DefaultWindow is the window a zero ClockSyncConfig.Window means.
const DefaultWindow = 32

// ClockSyncConfig configures a ClockSync. The zero value of every field
// means its documented default.
type ClockSyncConfig struct {
	// Window is how many of the newest measurements the fit runs over.
	// Zero means DefaultWindow. Range [2, 4096].
	Window int
}

// ClockSync estimates the offset of a remote clock from the local one and
// its skew (how fast the offset drifts), by a least-squares line through the
// newest Window measurements of offset against local time. It assumes
// symmetric paths: a round trip cannot tell an asymmetric one-way delay
// from an offset, so size buffers to absorb that residual. It sizes buffers
// and reports; it never chooses the frame shown.
//
// A ClockSync is not safe for concurrent use. Its methods never allocate.
type ClockSync struct {
	local, offset []float64 // ring of measurements, ns
	next, n       int
	rejected      int64
}

// NewClockSync returns a ClockSync with no measurements.
func NewClockSync(cfg ClockSyncConfig) (*ClockSync, error) {
	if cfg.Window == 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.Window < 2 || cfg.Window > 4096 {
		return nil, fmt.Errorf("%w: Window %d not in [2, 4096]", errConfig, cfg.Window)
	}
	return &ClockSync{local: make([]float64, cfg.Window), offset: make([]float64, cfg.Window)}, nil
}

// Observe records one measurement: at local time at, the remote clock read
// the local one plus offset.
func (c *ClockSync) Observe(at, offset time.Duration) {
	c.local[c.next], c.offset[c.next] = float64(at), float64(offset)
	c.next = (c.next + 1) % len(c.local)
	c.n = min(c.n+1, len(c.local))
}

// ObserveExchange records the measurement of one request and reply: sent
// and received on the local clock, remote the remote clock's reading in
// between. The offset is taken at the exchange's midpoint. A reply received
// before its request was sent is counted as rejected and returns ErrSample.
func (c *ClockSync) ObserveExchange(sent, remote, received time.Duration) error {
	if received < sent {
		c.rejected++
		return ErrSample // unwrapped: this path must not allocate
	}
	mid := sent + (received-sent)/2
	c.Observe(mid, remote-mid)
	return nil
}

// fit returns the least-squares line offset = a + b·(local - x0).
func (c *ClockSync) fit() (x0, a, b float64) {
	x0 = c.local[(c.next+len(c.local)-1)%len(c.local)] // newest, for precision
	var sx, sy float64
	for i := range c.n {
		sx += c.local[i] - x0
		sy += c.offset[i]
	}
	mx, my := sx/float64(c.n), sy/float64(c.n)
	var sxx, sxy float64
	for i := range c.n {
		dx := c.local[i] - x0 - mx
		sxx += dx * dx
		sxy += dx * (c.offset[i] - my)
	}
	if sxx > 0 {
		b = sxy / sxx
	}
	return x0, my - b*mx, b
}

// Offset returns the fitted offset of the remote clock at local time at
// (along the line, so it interpolates and extrapolates); ok is false before
// two measurements.
func (c *ClockSync) Offset(at time.Duration) (offset time.Duration, ok bool) {
	if c.n < 2 {
		return 0, false
	}
	x0, a, b := c.fit()
	return time.Duration(a + b*(float64(at)-x0)), true
}

// Remote returns the remote clock's estimated reading at local time at.
func (c *ClockSync) Remote(at time.Duration) (remote time.Duration, ok bool) {
	o, ok := c.Offset(at)
	return at + o, ok
}

// Skew returns how fast the offset drifts, in remote-minus-local time per
// unit of local time (×1e6 for parts per million); zero before two
// measurements.
func (c *ClockSync) Skew() float64 {
	if c.n < 2 {
		return 0
	}
	_, _, b := c.fit()
	return b
}

// Samples returns how many measurements the fit runs over.
func (c *ClockSync) Samples() int { return c.n }

// Rejected returns how many exchanges were refused.
func (c *ClockSync) Rejected() int64 { return c.rejected }

// Reset forgets every measurement.
func (c *ClockSync) Reset() { c.next, c.n, c.rejected = 0, 0, 0 }
