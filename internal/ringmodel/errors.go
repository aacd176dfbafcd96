package ringmodel

import "errors"

// Sentinel errors. Every error Check returns wraps one of these.
var (
	// ErrMismatch reports that the ring and the model disagree; the wrapping
	// error names the operation, its index and both values.
	ErrMismatch = errors.New("ringmodel: ring and model disagree")

	// ErrConfig reports a Config Check cannot run with.
	ErrConfig = errors.New("ringmodel: invalid config")
)
