package playout

import "time"

// ClockConfig configures the interpolation clock of an authoritative client
// (authority.PlayoutConfig.Render): one render time per drawn frame, a
// render delay behind the newest host frame, steered by rate and never by
// snapping. The zero value of every field means its documented default.
type ClockConfig struct {
	// Step is the duration of one host frame. Zero means DefaultStep.
	// Range [1µs, 1s].
	Step time.Duration
	// Delay is how far behind the newest host frame the clock draws, in
	// frames. Zero means 3. Range [0.5, 600].
	Delay float64
	// MaxRate bounds the steering: the clock runs at a rate in
	// [1-MaxRate, 1+MaxRate]. Zero means 0.10. Range (0, 0.5].
	MaxRate float64
	// Gain is the rate change per frame of error, before the bound. Zero
	// means 0.05: one frame behind runs 5% fast. Range (0, 1].
	Gain float64
	// Resync is the error, in frames, beyond which the clock re-anchors on
	// the stream (after a frame time or a stream jump far longer than the
	// delay) instead of steering for minutes; authority.Client.PlayoutStats
	// counts resyncs. Zero means 60, or 2×Delay if more. Range
	// [2×Delay, 1e6].
	Resync float64
}
