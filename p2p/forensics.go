package p2p

import (
	"fmt"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/replay"
	"github.com/rollnet/rollnet/session"
)

// Desync forensics. When peers' checksums of a frame differ
// (EventDesyncDetected), the question is where their states parted. A
// session in the debug mode KeepStates keeps the state of its last n
// checksummed frames (the ring holds only Capacity frames, and the
// peer's checksum arrives a round trip later); the game writes the state
// of the event's frame with WriteState, the peers' files are brought
// together (the states are not sent over the session's own protocol: they
// do not fit its packets, and a debugging aid should not add a message
// to it), and DescribeDesync names the fields that differ:
//
//	Pong.Ball.VX: 3 here, 4 at peer b; 2 other fields differ

// maxKeep bounds KeepStates.
const maxKeep = 1 << 16

// keeper keeps the states of the last len(tags) checksummed frames.
type keeper[S any] struct {
	states []S
	tags   []rollnet.Frame // frame held by states[i], or NoFrame
	next   rollnet.Frame   // next frame to keep
}

// recording is what a session records as frames become confirmed: into a
// Recorder, and states kept for forensics. Either may be nil.
type recording[S any, I comparable] struct {
	rec  *replay.Recorder[S, I]
	keep *keeper[S]
}

// confirmed records and keeps core's newly confirmed frames; every is the
// checksum interval. It allocates nothing.
func (r *recording[S, I]) confirmed(core *session.Session[S, I], every int) {
	if r.rec != nil || r.keep != nil {
		r.record(core, every) // out of line: most sessions neither record nor keep states
	}
}

// record is confirmed past its inline test.
func (r *recording[S, I]) record(core *session.Session[S, I], every int) {
	if r.rec != nil {
		_ = r.rec.RecordConfirmed(core) // r.rec keeps its error for Flush and Close
	}
	k := r.keep
	if k == nil || every <= 0 {
		return
	}
	c := min(core.ConfirmedFrame(), core.Frame()-1)
	for ; k.next <= c; k.next += rollnet.Frame(every) {
		st, err := core.StateAt(k.next)
		if err != nil {
			continue // not held: the interval is longer than the ring
		}
		i := int(k.next/rollnet.Frame(every)) % len(k.tags)
		k.states[i], k.tags[i] = *st, k.next
	}
}

// newKeeper returns a keeper of n states.
func newKeeper[S any](n int) (*keeper[S], error) {
	if n < 1 || n > maxKeep {
		return nil, fmt.Errorf("%w: KeepStates %d not in [1, %d]", session.ErrArgument, n, maxKeep)
	}
	k := &keeper[S]{states: make([]S, n), tags: make([]rollnet.Frame, n)}
	for i := range k.tags {
		k.tags[i] = rollnet.NoFrame
	}
	return k, nil
}

// state returns the kept state of frame f.
func (k *keeper[S]) state(f rollnet.Frame, every int) (*S, bool) {
	if k == nil || f < 0 || every <= 0 {
		return nil, false
	}
	i := int(f/rollnet.Frame(every)) % len(k.tags)
	if k.tags[i] != f {
		return nil, false
	}
	return &k.states[i], true
}

// KeepStates turns on the desync debug mode: the session keeps the
// states of its last n checksummed frames (n states of S, allocated now;
// a copy per checksum), so that KeptState can answer for the frame of an
// EventDesyncDetected. Call it before the first AdvanceFrame. n must be in
// [1, 65536], else session.ErrArgument.
func (p *Session[S, I]) KeepStates(n int) error {
	k, err := newKeeper[S](n)
	if err != nil {
		return err
	}
	p.rec.keep = k
	return nil
}

// KeptState returns the state after frame f, kept by KeepStates, if the
// frame was checksummed and is still kept. Read it, do not write it.
func (p *Session[S, I]) KeptState(f rollnet.Frame) (*S, bool) {
	return p.rec.keep.state(f, p.checks.Interval)
}

// KeepStates is Session.KeepStates for a spectator.
func (s *Spectator[S, I]) KeepStates(n int) error {
	k, err := newKeeper[S](n)
	if err != nil {
		return err
	}
	s.rec.keep = k
	return nil
}

// KeptState is Session.KeptState for a spectator.
func (s *Spectator[S, I]) KeptState(f rollnet.Frame) (*S, bool) {
	return s.rec.keep.state(f, s.checks.Interval)
}
