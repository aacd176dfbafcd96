package link

import (
	"errors"
	"fmt"

	"github.com/rollnet/rollnet/transport"
)

// Sentinel errors of the link. Test with errors.Is.
var (
	// ErrConfig reports a NetConfig or a link that cannot work. The error
	// is a *ConfigError, whose Detail an owner may rewrap under its own
	// sentinel.
	ErrConfig = errors.New("link: invalid config")

	// ErrSyncFailed reports a handshake that failed: the ends disagree on
	// the settings, speak another protocol, or did not complete it within
	// NetConfig.SyncTimeout. The error is a *SyncError naming the peer and
	// the reason; an EventSyncFailed says the same.
	ErrSyncFailed = errors.New("rollnet: synchronization failed")
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

// SyncError is the error of a failed handshake: which peer, and why.
// errors.Is(err, ErrSyncFailed) holds for it.
type SyncError struct {
	Peer   transport.Peer
	Reason string
}

// Error names the peer and the reason.
func (e *SyncError) Error() string {
	return fmt.Sprintf("%v with %q: %s", ErrSyncFailed, string(e.Peer), e.Reason)
}

// Unwrap returns ErrSyncFailed.
func (e *SyncError) Unwrap() error { return ErrSyncFailed }

// Reasons a handshake fails, as SyncError.Reason and Event.Reason carry them.
const (
	ReasonSettings = "settings differ (players, input size, input delay, frame rate, checksum interval, player placement or game settings)"
	ReasonProtocol = "protocol version differs"
	ReasonWire     = "wire version differs"
	ReasonTimeout  = "no handshake within the sync timeout (peer absent, unreachable or failed)"
)
