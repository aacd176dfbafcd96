package signaling

import "errors"

var (
	// ErrClosed is returned by Send after the client closed or its
	// connection dropped.
	ErrClosed = errors.New("signaling: closed")
)
