package rollebiten

import (
	"errors"
	"fmt"

	"github.com/rollnet/rollnet"
)

// ErrConfig is returned by New and Run for a Config they cannot use.
var ErrConfig = fmt.Errorf("%w: rollebiten", rollnet.ErrConfig)

// ErrInterrupted is returned by Run when a signal (SIGINT, as Ctrl-C in a
// terminal, or SIGTERM) ended the game, after it left the match cleanly:
// like http.ErrServerClosed, it says how the game ended, not that
// anything failed.
var ErrInterrupted = errors.New("rollebiten: interrupted")
