package session

import (
	"errors"
	"fmt"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/codec"
)

// Sentinel errors of the core session and the sync test. Every error they
// return is, or wraps, one of these or rollnet.ErrConfig (or is a
// *DesyncError); test with errors.Is.
var (
	// errConfig is the error of a Config that cannot work: players out
	// of range, a capacity that is not a power of two, an input delay or
	// prediction limit outside the window, or an input type that is not
	// pointer-free and gap-free. It wraps rollnet.ErrConfig.
	errConfig = fmt.Errorf("%w: session", rollnet.ErrConfig)

	// ErrPlayer reports a player index outside [0, Players), or a player
	// mask naming one.
	ErrPlayer = errors.New("session: player out of range")

	// ErrOutOfWindow reports a frame the session cannot accept or answer
	// for: a remote input too far ahead (nothing is stored), a frame
	// before 0, or a checksum/state query for a frame whose committed state
	// is not held (or is awaiting re-simulation).
	ErrOutOfWindow = errors.New("session: frame out of window")

	// ErrConflict reports a remote input that contradicts an input already
	// confirmed for the same frame and player: a desync, not a
	// misprediction. The first value stays. The error is a *ConflictError.
	ErrConflict = errors.New("session: conflicting input for a confirmed frame")

	// ErrPredictionLimit reports that AdvanceFrame refused to run: Frame() is
	// already MaxPrediction frames past ConfirmedFrame(). Nothing changed;
	// feed more inputs and call AdvanceFrame again.
	ErrPredictionLimit = errors.New("session: prediction limit reached")

	// ErrNotConfirmed reports a PackInputs request for a frame whose input
	// is not confirmed for every player in the mask.
	ErrNotConfirmed = errors.New("session: input not confirmed")

	// ErrArgument reports an argument out of its documented range (e.g. a
	// frame count below 1 for PackInputs).
	ErrArgument = errors.New("session: invalid argument")

	// ErrMalformed reports bytes that do not decode into inputs of this
	// session: a block that is empty or not a whole number of frames, a
	// base frame that does not fit, or an input value its type cannot
	// hold (a bool byte other than 0 or 1).
	// errors.Is(err, codec.ErrMalformed) holds too.
	ErrMalformed = fmt.Errorf("session: malformed inputs: %w", codec.ErrMalformed)
)

// ConflictError is the error AddRemoteInput returns for an input that
// contradicts the input already confirmed for the same frame and player.
// errors.Is(err, ErrConflict) holds for it.
type ConflictError struct {
	Frame  rollnet.Frame
	Player int
}

// Error says which frame and player conflicted.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("%v: frame %d player %d", ErrConflict, e.Frame, e.Player)
}

// Unwrap returns ErrConflict.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// DesyncError is the error a SyncTest's AdvanceFrame returns when re-simulating a
// frame with the same inputs produced a state whose checksum differs from
// the one first committed: the simulation is not deterministic.
type DesyncError struct {
	Frame rollnet.Frame // the first frame whose re-simulated state differed
	Want  uint32        // checksum of the state first committed after Frame
	Got   uint32        // checksum of the re-simulated state after Frame
}

// Error names the frame and both checksums.
func (e *DesyncError) Error() string {
	return fmt.Sprintf("session: desync at frame %d: first simulation checksum %08x, re-simulation %08x", e.Frame, e.Want, e.Got)
}
