package pacing

import "errors"

// Errors. A Config field out of range is an error wrapping playout.ErrConfig,
// and a NaN or infinite argument playout.ErrNotFinite, so that authority's
// callers test the one public name; ErrSample is this package's own.
var (
	// ErrSample reports an estimator sample that cannot be a measurement:
	// a negative or absurdly long round trip, an exchange whose reply came
	// back before its request left. It was counted and dropped.
	ErrSample = errors.New("pacing: sample out of range")
)
