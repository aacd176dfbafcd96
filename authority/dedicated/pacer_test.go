package dedicated

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A host process that pauses (descheduled beside busy loops) runs every
// frame it owes the moment it wakes, so its clients wait the pause for a
// state and not a tick more. The loop is the host's, on its real ticker,
// in a synctest bubble: a frame's simulation sleeps the pause (the
// process off the CPU), and each frame's time is noted. Taking the
// tick's value (the time the missed tick was due, which Go's ticker
// hands a late reader) ran one frame on waking and the rest at the next
// tick: 10, 8.3 and 3.3 ms late for these pauses.
func TestPausedHostRunsWhatItOwesOnWaking(t *testing.T) {
	for _, pause := range []time.Duration{40 * time.Millisecond, 75 * time.Millisecond, 130 * time.Millisecond} {
		t.Run(pause.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const fps, frames, pausedAt = 60, 120, 50
				step := time.Second / fps
				start := time.Now()
				pc, err := newPacer(fps)
				require.NoError(t, err)
				defer pc.stop()
				at := make([]time.Time, 0, frames)
				var woke time.Time
				for len(at) < frames {
					<-pc.tick.C
					_, n := pc.owed()
					for range n {
						at = append(at, time.Now())
						if len(at) == pausedAt {
							time.Sleep(pause) // the process is off the CPU mid-frame
							woke = time.Now()
						}
					}
				}
				worst, worstAt := time.Duration(0), 0
				for f, got := range at {
					due := start.Add(time.Duration(f+1) * step) // frame f is due a step after it opens
					if f >= pausedAt && due.Before(woke) {
						due = woke // owed while paused: due when the process is back
					}
					if late := got.Sub(due); late > worst {
						worst, worstAt = late, f
					}
				}
				t.Logf("pause %v: the latest frame ran %v after it was due (frame %d)", pause, worst, worstAt)
				assert.Less(t, worst, time.Millisecond, "a frame ran later than due: the host caught up at its next tick, not on waking")
				assert.Len(t, at, frames)
			})
		})
	}
}
