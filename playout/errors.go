package playout

import (
	"errors"
	"fmt"

	"github.com/rollnet/rollnet"
)

// Sentinel errors. Every error returned by this package is, or wraps, one of
// these or rollnet.ErrConfig (a Config field out of its documented range:
// the error names the field and its bounds); test with errors.Is.
var (
	// errConfig reports a Config field out of its documented range. The
	// returned error wraps it and names the field and its bounds. It wraps
	// rollnet.ErrConfig.
	errConfig = fmt.Errorf("%w: playout", rollnet.ErrConfig)

	// ErrNotFinite reports a NaN or infinite argument (a time scale, a
	// correction, a render delay). The call changed nothing.
	ErrNotFinite = errors.New("playout: argument is NaN or infinite")
)
