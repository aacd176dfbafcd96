package hostcmd

import "errors"

// Sentinel errors.
var (
	// ErrUsage reports a bad command line.
	ErrUsage = errors.New("rollnet-host: usage")
	// ErrUnknownGame reports a -game no Register named.
	ErrUnknownGame = errors.New("rollnet-host: unknown game")
)
