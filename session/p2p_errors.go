package session

import (
	"errors"
)

// Sentinel errors of the P2P session and the spectator. Test with
// errors.Is.
var (
	// ErrNotSynchronized is returned by AdvanceFrame while the handshake
	// with some peer is still running. The network was polled; call again
	// next tick.
	ErrNotSynchronized = errors.New("session: not synchronized with every peer yet")

	// ErrNotLocal reports AddLocalInput for a player that is not local.
	ErrNotLocal = errors.New("session: player is not local")

	// ErrNoLocalInput reports AdvanceFrame before AddLocalInput gave every
	// local player an input for the frame.
	ErrNoLocalInput = errors.New("session: local input missing for this frame")

	// ErrNotAPeer reports a transport peer the session does not know.
	ErrNotAPeer = errors.New("session: not a peer of this session")

	// ErrClosed is returned by every call after Close.
	ErrClosed = errors.New("session: closed")

	// ErrSpectatorLate is returned by AddSpectator when the inputs a new
	// spectator needs to replay the match from its start are no longer
	// held (see P2PConfig.SpectatorArchive).
	ErrSpectatorLate = errors.New("session: too late to add a spectator: the match's first inputs are no longer held")

	// ErrSpectatorLimit is returned by AddSpectator beyond MaxSpectators.
	ErrSpectatorLimit = errors.New("session: too many spectators")

	// ErrStarted is returned by SetInitialState once the first frame was
	// simulated.
	ErrStarted = errors.New("session: the first frame was simulated already")

	// ErrHostGone reports, on a spectator, that the host disconnected; the
	// spectator plays on no further.
	ErrHostGone = errors.New("session: spectator's host disconnected")
)
