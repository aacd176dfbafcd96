package session

import (
	"fmt"

	"github.com/rollnet/rollnet"
)

// defaultCheckDistance is the CheckDistance a zero SyncTestConfig means.
const defaultCheckDistance = 2

// SyncTestConfig configures a SyncTest: a session Config plus how far back
// every AdvanceFrame re-simulates.
type SyncTestConfig[I comparable] struct {
	Config[I]
	// CheckDistance is how many frames every AdvanceFrame rolls back and
	// re-simulates with the same inputs; 0 means 2. It must be below
	// Capacity.
	CheckDistance int
}

// SyncTest is a Session that proves its simulation deterministic: every
// AdvanceFrame simulates the frame like a Session, then rolls back CheckDistance
// frames and re-simulates them with the same inputs, comparing every
// re-simulated state's checksum with the one first committed. Use it in a
// game's tests, with every player's input given through AddLocalInput (or
// AddRemoteInput); every Session method is available.
type SyncTest[S any, I comparable] struct {
	*Session[S, I]
	distance int
	want     []uint32 // scratch: the first checksums of the checked frames
}

// NewSyncTest returns a sync test for cfg and simulate. Config rules are
// those of New; CheckDistance must be in [0, Capacity-1].
func NewSyncTest[S any, I comparable](cfg SyncTestConfig[I], simulate func(s *S, inputs []I, frame rollnet.Frame)) (*SyncTest[S, I], error) {
	s, err := New[S](cfg.Config, simulate)
	if err != nil {
		return nil, err
	}
	d := cfg.CheckDistance
	if d == 0 {
		d = defaultCheckDistance
	}
	if d < 0 || d >= s.ring.Capacity() {
		return nil, fmt.Errorf("%w: CheckDistance %d not in [1, Capacity-1 = %d]", errConfig, cfg.CheckDistance, s.ring.Capacity()-1)
	}
	return &SyncTest[S, I]{Session: s, distance: d, want: make([]uint32, d)}, nil
}

// checkDistance returns how many frames every AdvanceFrame re-simulates.
func (t *SyncTest[S, I]) checkDistance() int { return t.distance }

// AdvanceFrame steps the session (see Session.AdvanceFrame), then rolls back up to
// CheckDistance frames (fewer at the start of a match) and re-simulates
// them with the inputs they were simulated with. It returns a *DesyncError
// for the first frame whose re-simulated state's checksum differs from the
// one first committed; the session has then moved on to the next frame all
// the same, with the re-simulated states committed.
func (t *SyncTest[S, I]) AdvanceFrame() error {
	if err := t.Session.AdvanceFrame(); err != nil {
		return err
	}
	s := t.Session
	d := min(t.distance, int(s.frame))
	for n := range d {
		t.want[n], _ = s.ring.ChecksumAt(n) // n < d <= Depth-1
	}
	if err := s.ring.Rollback(d); err != nil {
		return fmt.Errorf("session: sync test rollback of %d frames: %w", d, err) // unreachable
	}
	var desync *DesyncError
	for f := s.frame - rollnet.Frame(d); f < s.frame; f++ {
		slot := int(f) & s.mask
		base := slot * s.players
		for p := range s.args { // confirmed then or now: the same input (no rollback is pending)
			if s.conf[slot]&(1<<p) != 0 {
				s.args[p] = s.inputs[base+p]
			} else {
				s.args[p] = s.used[base+p]
			}
		}
		s.simulate(s.ring.Live(), s.args, f)
		s.ring.Commit()
		if got, want := s.ring.Checksum(), t.want[s.frame-1-f]; got != want && desync == nil {
			desync = &DesyncError{Frame: f, Want: want, Got: got}
		}
	}
	if desync != nil {
		return desync
	}
	return nil
}
