package fleet

import (
	"fmt"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/fleetkv"
)

// Sentinel errors. A placement's refusal wraps one of them, and its HTTP
// status says which (Reply.Status).
var (
	// errConfig is a bad Config, host record or flag value: errors.Is(err,
	// rollnet.ErrConfig) holds.
	errConfig = fmt.Errorf("%w: fleet", rollnet.ErrConfig)
	// ErrBadRequest is a placement request that does not decode or names
	// a game, room or version outside the limits (HTTP 400).
	ErrBadRequest = fleetkv.ErrBadRequest
	// ErrUnavailable is a fleet that cannot be reached: NATS is down or a
	// key-value operation timed out (HTTP 503). Ask again later.
	ErrUnavailable = fleetkv.ErrUnavailable
	// ErrNoHost is a fleet with no live, undrained host of the game and
	// version with room for one more match (HTTP 503).
	ErrNoHost = fleetkv.ErrNoHost
	// ErrVersion is a fleet whose hosts of the game all run another
	// version (HTTP 409): a version mismatch never places.
	ErrVersion = fleetkv.ErrVersion
	// ErrRoomFull is a room whose match has every client it can take
	// (HTTP 409).
	ErrRoomFull = fleetkv.ErrRoomFull
	// ErrBusy is a client address over its placement rate, or a placer
	// at its limit of placements in flight (HTTP 429).
	ErrBusy = fleetkv.ErrBusy
)
