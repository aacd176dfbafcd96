package greeting

import (
	"errors"
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
)

var (
	// ErrConfig reports an Announcement or a netplay Config field out of
	// range: rollnet.ErrConfig, wrapped.
	ErrConfig = fmt.Errorf("%w: netplay", rollnet.ErrConfig)

	// ErrMalformed reports a message that does not decode.
	ErrMalformed = errors.New("netplay: malformed message")
)

// defaultGrace is Announcement.Grace's default (authority.HostConfig's).
const defaultGrace = 20 * time.Second
