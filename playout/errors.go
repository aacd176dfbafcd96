package playout

import "errors"

// Sentinel errors. Every error returned by this package is, or wraps, one of
// these; test with errors.Is.
var (
	// ErrConfig reports a Config field out of its documented range. The
	// returned error wraps it and names the field and its bounds.
	ErrConfig = errors.New("playout: invalid config")

	// ErrNotFinite reports a NaN or infinite argument (a time scale, a
	// correction, a render delay). The call changed nothing.
	ErrNotFinite = errors.New("playout: argument is NaN or infinite")
)
