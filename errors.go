package rollnet

import (
	"errors"
	"fmt"
)

// Sentinel errors both modes share. Test with errors.Is.
var (
	// ErrSyncFailed reports a handshake that failed: the ends disagree on
	// the settings, speak another protocol, or did not complete it within
	// NetConfig.SyncTimeout. The error is a *SyncError naming the peer and
	// the reason; an EventSyncFailed says the same.
	ErrSyncFailed = errors.New("rollnet: synchronization failed")

	// ErrConfig reports a bad argument to a constructor: a Config field
	// out of range, a state type with a pointer or padding, a missing
	// callback. Every package's constructor wraps it with what was wrong,
	// so errors.Is(err, rollnet.ErrConfig) holds whichever package refused.
	ErrConfig = errors.New("rollnet: invalid config")

	// ErrClosed reports a call on a session, match, transport or host that
	// was closed (by Close, or by the end of the match). Every package
	// wraps it, so errors.Is(err, rollnet.ErrClosed) holds everywhere.
	ErrClosed = errors.New("rollnet: closed")
)

// SyncError is the error of a failed handshake: which peer, and why.
// errors.Is(err, ErrSyncFailed) holds for it.
type SyncError struct {
	Peer Peer
	// Reason says why in words, one of: the settings differ (players,
	// input size, input delay, frame rate, checksum interval, player
	// placement or game settings), the protocol version differs, the
	// wire version differs, or no handshake within the sync timeout
	// (peer absent, unreachable or failed). An EventSyncFailed carries the
	// same.
	Reason string
}

// Error names the peer and the reason.
func (e *SyncError) Error() string {
	return fmt.Sprintf("%v with %q: %s", ErrSyncFailed, string(e.Peer), e.Reason)
}

// Unwrap returns ErrSyncFailed.
func (e *SyncError) Unwrap() error { return ErrSyncFailed }
