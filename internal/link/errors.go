package link

import (
	"fmt"

	"github.com/rollnet/rollnet"
)

// Sentinel errors of the link. Test with errors.Is.
var (
	// ErrConfig reports a NetConfig or a link that cannot work. The error
	// is a *ConfigError, whose Detail an owner may rewrap under its own
	// sentinel.
	ErrConfig = fmt.Errorf("%w: link", rollnet.ErrConfig)
)

// ConfigError is the error of a bad NetConfig or link: Detail says what.
// errors.Is(err, ErrConfig) holds for it.
type ConfigError struct{ Detail string }

// Error returns the detail behind ErrConfig's message.
func (e *ConfigError) Error() string { return fmt.Sprintf("%v: %s", ErrConfig, e.Detail) }

// Unwrap returns ErrConfig.
func (e *ConfigError) Unwrap() error { return ErrConfig }

func configError(format string, args ...any) error {
	return &ConfigError{Detail: fmt.Sprintf(format, args...)}
}

// Reasons a handshake fails, as rollnet.SyncError.Reason and
// rollnet.Event.Reason carry them.
const (
	ReasonSettings = "settings differ (players, input size, input delay, frame rate, checksum interval, player placement or game settings)"
	ReasonProtocol = "protocol version differs"
	ReasonWire     = "wire version differs"
	ReasonTimeout  = "no handshake within the sync timeout (peer absent, unreachable or failed)"
)
