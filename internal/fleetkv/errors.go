package fleetkv

import (
	"errors"
	"fmt"
	"strings"
)

// The refusals of a placement, declared here so that the placer's side
// (package fleet, which exports each with its meaning and HTTP status) and
// the client's (netplay, reading a refusal back with ErrorOf) share them.
var (
	ErrBadRequest  = errors.New("fleet: bad placement request")
	ErrUnavailable = errors.New("fleet: unavailable (NATS unreachable)")
	ErrNoHost      = errors.New("fleet: no host with room")
	ErrVersion     = errors.New("fleet: no host runs this version")
	ErrRoomFull    = errors.New("fleet: the room's match is full")
	ErrBusy        = errors.New("fleet: too many placement requests")
)

// ErrorOf is the error a placement refusal's status and message stand
// for: it wraps the sentinel its message starts with (ErrUnavailable when
// none does and the status is 503).
func ErrorOf(status int, msg string) error {
	for _, e := range []error{ErrBadRequest, ErrUnavailable, ErrNoHost, ErrVersion, ErrRoomFull, ErrBusy} {
		if strings.HasPrefix(msg, e.Error()) {
			return fmt.Errorf("%w%s (HTTP %d)", e, strings.TrimPrefix(msg, e.Error()), status)
		}
	}
	if status == 503 {
		return fmt.Errorf("%w: HTTP %d %s", ErrUnavailable, status, msg)
	}
	return fmt.Errorf("fleet: placement refused: HTTP %d %s", status, msg)
}
