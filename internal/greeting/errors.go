package greeting

import (
	"errors"
	"time"
)

var (
	// ErrConfig reports an Announcement field out of range: netplay's
	// ErrConfig, the same error.
	ErrConfig = errors.New("netplay: invalid config")

	// ErrMalformed reports a message that does not decode.
	ErrMalformed = errors.New("netplay: malformed message")
)

// defaultGrace is Announcement.Grace's default (authority.HostConfig's).
const defaultGrace = 20 * time.Second
