package p2p

import (
	"errors"
	"fmt"

	"github.com/rollnet/rollnet"
)

// Sentinel errors of the P2P session and the spectator. Test with
// errors.Is. A bad config wraps rollnet.ErrConfig, a call after Close
// rollnet.ErrClosed; errors of the core session (ErrPredictionLimit,
// ErrPlayer, ...) are package session's.
var (
	errConfig = fmt.Errorf("%w: p2p", rollnet.ErrConfig)
	errClosed = fmt.Errorf("p2p: %w", rollnet.ErrClosed)

	// ErrNotSynchronized is returned by AdvanceFrame while the handshake
	// with some peer is still running. The network was polled; call again
	// next tick.
	ErrNotSynchronized = errors.New("p2p: not synchronized with every peer yet")

	// ErrNotLocal reports AddLocalInput for a player that is not local.
	ErrNotLocal = errors.New("p2p: player is not local")

	// ErrNoLocalInput reports AdvanceFrame before AddLocalInput gave every
	// local player an input for the frame.
	ErrNoLocalInput = errors.New("p2p: local input missing for this frame")

	// ErrNotAPeer reports a transport peer the session does not know.
	ErrNotAPeer = errors.New("p2p: not a peer of this session")

	// ErrSpectatorLate is returned by AddSpectator when the inputs a new
	// spectator needs to replay the match from its start are no longer
	// held (see Config.SpectatorArchive).
	ErrSpectatorLate = errors.New("p2p: too late to add a spectator: the match's first inputs are no longer held")

	// ErrSpectatorLimit is returned by AddSpectator beyond MaxSpectators.
	ErrSpectatorLimit = errors.New("p2p: too many spectators")

	// ErrStarted is returned by SetInitialState once the first frame was
	// simulated.
	ErrStarted = errors.New("p2p: the first frame was simulated already")

	// ErrAwaiting is returned by AdvanceFrame, under AbsenceFreeze, at the
	// frame every peer stops at while a player is away
	// (EventPlayerAwaited); the network was polled and served: call again
	// next tick. Awaited says who and since when.
	ErrAwaiting = errors.New("p2p: the match waits for a player who is away")

	// ErrForfeited is returned by AdvanceFrame, under AbsenceForfeit, from
	// the frame every peer stops at once a player is away
	// (EventPlayerForfeited names it): the match goes no further; the game
	// decides (every peer holds the same state).
	ErrForfeited = errors.New("p2p: a player forfeited the match by leaving")

	// ErrHostGone reports, on a spectator, that the host disconnected; the
	// spectator plays on no further.
	ErrHostGone = errors.New("p2p: spectator's host disconnected")
)
