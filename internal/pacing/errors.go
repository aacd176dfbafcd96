package pacing

import (
	"errors"
	"fmt"

	"github.com/rollnet/rollnet"
)

// Errors. A Config field out of range is an error wrapping
// rollnet.ErrConfig, and a NaN or infinite argument playout.ErrNotFinite,
// so that authority's callers test public names; ErrSample is this
// package's own.
var (
	errConfig = fmt.Errorf("%w: playout", rollnet.ErrConfig)

	// ErrSample reports an estimator sample that cannot be a measurement:
	// a negative or absurdly long round trip, an exchange whose reply came
	// back before its request left. It was counted and dropped.
	ErrSample = errors.New("pacing: sample out of range")
)
