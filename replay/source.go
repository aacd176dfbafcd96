package replay

import (
	"fmt"

	"github.com/rollnet/rollnet"
)

// errNotHeld reports a frame whose input the Source no longer holds:
// RecordConfirmed was not called for longer than the source's window, a
// misuse of the call like the other ErrArgument cases.
var errNotHeld = fmt.Errorf("%w: input no longer held by the source", ErrArgument)

// Source is what a Recorder records a match from, frame by frame as
// frames become confirmed (all inputs known, simulated, never rolled back
// again). A core *session.Session is one: a P2P session, a spectator and
// an authoritative host record through theirs.
type Source[S any, I comparable] interface {
	// Players is the number of players.
	Players() int
	// Frame is the next frame to simulate.
	Frame() rollnet.Frame
	// ConfirmedFrame is the newest frame whose inputs are all known.
	ConfirmedFrame() rollnet.Frame
	// ConfirmedInput is player's confirmed input of frame f, while held.
	ConfirmedInput(player int, f rollnet.Frame) (I, bool)
	// StateAt is the state after frame f, while held.
	StateAt(f rollnet.Frame) (*S, error)
}

// Attach checks that r can record a match driven by src: r is new, for
// src's players, and src has not simulated a frame. After it, call
// RecordConfirmed after every AdvanceFrame. The error wraps ErrArgument.
func (r *Recorder[S, I]) Attach(src Source[S, I]) error {
	switch {
	case r == nil || src == nil:
		return fmt.Errorf("%w: a nil recorder or source", ErrArgument)
	case r.players != src.Players():
		return fmt.Errorf("%w: a recorder for %d players, a session of %d", ErrArgument, r.players, src.Players())
	case r.frame != 0 || src.Frame() != 0:
		return fmt.Errorf("%w: recording starts at frame 0 (recorder at %d, session at %d)", ErrArgument, r.frame, src.Frame())
	}
	return nil
}

// RecordConfirmed records src's frames from r.Frame() through the newest
// frame both confirmed and simulated, and returns r's error: a write
// error, or one wrapping ErrArgument when src no longer holds a frame's
// inputs (it was not called for longer than src's window). It allocates
// nothing unless the writer does. On a nil r it does nothing.
func (r *Recorder[S, I]) RecordConfirmed(src Source[S, I]) error {
	if r == nil {
		return nil
	}
	if r.closed {
		return r.err
	}
	c := min(src.ConfirmedFrame(), src.Frame()-1)
	for f := r.frame; f <= c && r.err == nil; f++ {
		for p := range r.args {
			in, ok := src.ConfirmedInput(p, f)
			if !ok {
				r.err = fmt.Errorf("%w: frame %d player %d", errNotHeld, f, p)
				return r.err
			}
			r.args[p] = in
		}
		st, err := src.StateAt(f)
		if err != nil {
			r.err = err
			return r.err
		}
		_ = r.Record(r.args, st)
	}
	return r.err
}

// Players returns the number of players the recording is for.
func (r *Recorder[S, I]) Players() int { return r.players }
