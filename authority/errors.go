package authority

import "errors"

// Sentinel errors; every error this package returns is, or wraps, one of
// these (test with errors.Is).
var (
	// ErrConfig reports a configuration that cannot work: slots out of
	// range, a state or input type that cannot travel, a negative
	// duration.
	ErrConfig = errors.New("authority: invalid config")
	// ErrSlot reports a player slot the caller does not hold.
	ErrSlot = errors.New("authority: slot not held")
	// ErrNotReady reports a client call that needs the host's first state,
	// which has not arrived.
	ErrNotReady = errors.New("authority: not synchronized with the host")
	// ErrOutOfWindow reports a frame whose checksum the host no longer
	// keeps, or has not sent yet (Host.ChecksumAt).
	ErrOutOfWindow = errors.New("authority: frame out of window")
	// ErrClosed reports a call after Close.
	ErrClosed = errors.New("authority: closed")
)
