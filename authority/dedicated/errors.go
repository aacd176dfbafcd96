package dedicated

import "errors"

// Sentinel errors.
var (
	// ErrUsage reports a bad command line.
	ErrUsage = errors.New("rollnet-host: usage")
	// ErrUnknownGame reports a -game that names none of the games handed to
	// Main or Run.
	ErrUnknownGame = errors.New("rollnet-host: unknown game")
)
