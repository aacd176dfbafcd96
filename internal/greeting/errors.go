package greeting

import (
	"errors"
	"fmt"

	"github.com/rollnet/rollnet"
)

var (
	// ErrConfig reports an Announcement or a netplay Config field out of
	// range: rollnet.ErrConfig, wrapped.
	ErrConfig = fmt.Errorf("%w: netplay", rollnet.ErrConfig)

	// ErrMalformed reports a message that does not decode.
	ErrMalformed = errors.New("netplay: malformed message")
)
