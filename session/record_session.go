package session

import "fmt"

// SetRecorder makes the session record every frame into r as the frame
// becomes confirmed (all inputs known, simulated, never rolled back
// again), during AdvanceFrame. r must be new (r.Frame() == 0), for this
// session's players, and set before the first frame is simulated: else
// ErrArgument. Create r with the state the session starts from. A write
// error does not stop the match: r keeps it and returns it from Flush and
// Close. nil stops recording.
func (p *P2P[S, I]) SetRecorder(r *Recorder[S, I]) error {
	if err := canRecord(r, p.core, p.players); err != nil {
		return err
	}
	p.rec.rec = r
	return nil
}

// SetRecorder is P2P.SetRecorder for a spectator: it records the match as
// the spectator plays it along.
func (s *Spectator[S, I]) SetRecorder(r *Recorder[S, I]) error {
	if err := canRecord(r, s.core, s.players); err != nil {
		return err
	}
	s.rec.rec = r
	return nil
}

func canRecord[S any, I comparable](r *Recorder[S, I], core *Session[S, I], players int) error {
	switch {
	case r == nil:
		return nil
	case r.players != players:
		return fmt.Errorf("%w: a recorder for %d players, a session of %d", ErrArgument, r.players, players)
	case r.frame != 0 || core.Frame() != 0:
		return fmt.Errorf("%w: recording starts at frame 0 (recorder at %d, session at %d)", ErrArgument, r.frame, core.Frame())
	}
	return nil
}

// recordConfirmed records core's frames from r.Frame() through the newest
// frame both confirmed and simulated. Nothing happens when r is nil. It
// allocates nothing unless the writer does.
func (r *Recorder[S, I]) recordConfirmed(core *Session[S, I]) {
	if r == nil || r.closed {
		return
	}
	c := min(core.ConfirmedFrame(), core.Frame()-1)
	for f := r.frame; f <= c && r.err == nil; f++ {
		for p := range r.args {
			in, ok := core.confirmedInput(p, f)
			if !ok {
				r.err = fmt.Errorf("%w: frame %d player %d: input no longer held", ErrOutOfWindow, f, p)
				return
			}
			r.args[p] = in
		}
		st, err := core.StateAt(f)
		if err != nil {
			r.err = err
			return
		}
		_ = r.Record(r.args, st)
	}
}

// Attach checks that r can record a match driven by core (a host of package
// authority, or a game that steps a core Session itself): r is new, for
// core's players, and core has not simulated a frame. After it, call
// RecordConfirmed after every Step.
func (r *Recorder[S, I]) Attach(core *Session[S, I]) error {
	if r == nil {
		return fmt.Errorf("%w: a nil recorder", ErrArgument)
	}
	return canRecord(r, core, core.players)
}

// RecordConfirmed records core's frames from r.Frame() through the newest
// frame both confirmed and simulated, and returns r's error (a write error,
// or an input no longer held because RecordConfirmed was not called for
// too long). It allocates nothing unless the writer does.
func (r *Recorder[S, I]) RecordConfirmed(core *Session[S, I]) error {
	r.recordConfirmed(core)
	return r.err
}
