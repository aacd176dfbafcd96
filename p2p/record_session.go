package p2p

import (
	"fmt"

	"github.com/rollnet/rollnet/replay"
	"github.com/rollnet/rollnet/session"
)

// SetRecorder makes the session record every frame into r as the frame
// becomes confirmed (all inputs known, simulated, never rolled back
// again), during AdvanceFrame. r must be new (r.Frame() == 0), for this
// session's players, and set before the first frame is simulated: else
// session.ErrArgument. Create r with the state the session starts from. A write
// error does not stop the match: r keeps it and returns it from Flush and
// Close. nil stops recording.
func (p *Session[S, I]) SetRecorder(r *replay.Recorder[S, I]) error {
	if err := canRecord(r, p.core, p.players); err != nil {
		return err
	}
	p.rec.rec = r
	return nil
}

// SetRecorder is Session.SetRecorder for a spectator: it records the match as
// the spectator plays it along.
func (s *Spectator[S, I]) SetRecorder(r *replay.Recorder[S, I]) error {
	if err := canRecord(r, s.core, s.players); err != nil {
		return err
	}
	s.rec.rec = r
	return nil
}

func canRecord[S any, I comparable](r *replay.Recorder[S, I], core *session.Session[S, I], players int) error {
	switch {
	case r == nil:
		return nil
	case r.Players() != players:
		return fmt.Errorf("%w: a recorder for %d players, a session of %d", session.ErrArgument, r.Players(), players)
	case r.Frame() != 0 || core.Frame() != 0:
		return fmt.Errorf("%w: recording starts at frame 0 (recorder at %d, session at %d)", session.ErrArgument, r.Frame(), core.Frame())
	}
	return nil
}
