package authority

import (
	"fmt"

	"github.com/rollnet/rollnet/replay"
)

// SetRecorder makes the host record its match into r (package replay's
// recording format: settings, initial state, every frame's inputs and
// checksums), each frame once it is final: at once with LateApply, once no
// late input can roll it back with LateRollback. r must be new, made for
// the host's Players with the state the host starts from, and set before
// the first AdvanceFrame: else an error wrapping replay.ErrArgument (as
// for a host of more than 64 players, whose frames the recording format
// cannot hold). A write
// error does not stop the host: r keeps it for Flush and Close. nil stops
// recording. A recording replays with replay.NewReplayer and the host's
// simulate.
func (h *Host[S, I]) SetRecorder(r *replay.Recorder[S, I]) error {
	if r == nil {
		h.recorder = nil
		return nil
	}
	if h.session == nil {
		return fmt.Errorf("%w: a host of more than %d players is not recorded", replay.ErrArgument, maxCorePlayers)
	}
	if err := r.Attach(h.session); err != nil {
		return err
	}
	h.recorder = r
	return nil
}
