package pacing_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/pacing"
	"github.com/rollnet/rollnet/playout"
)

func TestQueueConfig(t *testing.T) {
	q, err := pacing.NewQueue[int64](playout.QueueConfig{})
	require.NoError(t, err)
	require.Equal(t, playout.QueueConfig{Capacity: pacing.DefaultCapacity, Depth: pacing.DefaultDepth,
		Start: pacing.DefaultStart, LostAhead: pacing.DefaultLostAhead}, q.Config())
	q, err = pacing.NewQueue[int64](playout.QueueConfig{Depth: 2})
	require.NoError(t, err)
	require.Equal(t, playout.QueueConfig{Capacity: 6, Depth: 2, Start: 2, LostAhead: pacing.DefaultLostAhead}, q.Config())
	for _, c := range []playout.QueueConfig{
		{Depth: -1}, {Depth: 1025},
		{Capacity: 4}, {Capacity: 4097}, {Capacity: -1},
		{Start: 5}, {Start: -1},
		{LostAhead: 11}, {LostAhead: 1<<24 + 1},
	} {
		_, err := pacing.NewQueue[int64](c)
		require.ErrorIs(t, err, rollnet.ErrConfig, "%+v", c)
	}
}

// queueRun drives a queue of frame numbers (the state is its frame) and
// returns what each tick did, "a" + frame, "r" + frame or "c" + frame.
type queueRun struct {
	t *testing.T
	q *pacing.Queue[int32]
}

func newQueueRun(t *testing.T, cfg playout.QueueConfig) *queueRun {
	q, err := pacing.NewQueue[int32](cfg)
	require.NoError(t, err)
	return &queueRun{t: t, q: q}
}

func (r *queueRun) push(want pacing.Admission, frames ...int32) {
	r.t.Helper()
	for _, f := range frames {
		require.Equal(r.t, want, r.q.Push(f, &f), "push %d", f)
	}
}

func (r *queueRun) tick(want pacing.Outcome, frame int32) {
	r.t.Helper()
	out, f, s := r.q.Tick()
	require.Equal(r.t, want, out, "outcome")
	require.Equal(r.t, frame, f, "frame")
	if out == pacing.Coast {
		require.Nil(r.t, s)
		return
	}
	require.Equal(r.t, frame, *s, "state")
	af, as, ok := r.q.Applied()
	require.True(r.t, ok)
	require.Equal(r.t, frame, af)
	require.Same(r.t, s, as)
}

func TestQueueStart(t *testing.T) {
	r := newQueueRun(t, playout.QueueConfig{})
	r.tick(pacing.Coast, 0) // nothing yet: nothing to coast from, nothing counted
	r.push(pacing.Queued, 10, 11)
	r.tick(pacing.Coast, 0)
	r.push(pacing.Queued, 12)
	r.tick(pacing.Restart, 10) // a clock that starts late: the stream's frames, not 0
	r.tick(pacing.Apply, 11)
	r.tick(pacing.Apply, 12)
	r.tick(pacing.Coast, 13)
	require.Equal(t, playout.QueueStats{Applied: 3, Coasted: 1}, r.q.Stats())

	// A burst at the start starts Start from the newest.
	r = newQueueRun(t, playout.QueueConfig{})
	r.push(pacing.Queued, 1, 2, 3, 4, 5, 6)
	r.tick(pacing.Restart, 4)
	require.Equal(t, int64(3), r.q.Stats().Dropped)
}

// TestQueueReorderPastHead: a state reordered past its predecessor waits
// one coast for it; a lost one is coasted once, then skipped.
func TestQueueReorderPastHead(t *testing.T) {
	r := newQueueRun(t, playout.QueueConfig{Start: 1})
	r.push(pacing.Queued, 1)
	r.tick(pacing.Restart, 1)
	r.push(pacing.Queued, 3) // 2 is late
	r.tick(pacing.Coast, 2)
	r.push(pacing.Queued, 2) // and arrives: it is applied, in order
	r.tick(pacing.Apply, 2)
	r.tick(pacing.Apply, 3)
	st := r.q.Stats()
	require.Equal(t, int64(1), st.Stalls, "2 came after its tick was coasted")
	require.Equal(t, int64(1), st.Underruns)
	require.Zero(t, st.Jumps)

	r.push(pacing.Queued, 5, 6) // 4 is lost
	r.tick(pacing.Coast, 4)
	r.tick(pacing.Apply, 5) // skipped after one coast: no jump, no stall
	r.tick(pacing.Apply, 6)
	st = r.q.Stats()
	require.Equal(t, int64(1), st.Stalls)
	require.Zero(t, st.Jumps)
	require.Equal(t, int64(2), st.Coasted)

	r.push(pacing.Queued, 9, 8) // two lost: one coast, then a jump
	r.tick(pacing.Coast, 7)
	r.tick(pacing.Apply, 8)
	r.tick(pacing.Apply, 9)
	require.Zero(t, r.q.Stats().Jumps, "7 coasted, 8 applied: one frame a tick")
	r.push(pacing.Queued, 12)
	r.tick(pacing.Coast, 10)
	r.tick(pacing.Apply, 12)
	require.Equal(t, int64(1), r.q.Stats().Jumps)
}

func TestQueueDuplicatesAndLate(t *testing.T) {
	r := newQueueRun(t, playout.QueueConfig{Start: 1})
	r.push(pacing.Queued, 5)
	r.push(pacing.Duplicate, 5)
	r.tick(pacing.Restart, 5)
	r.push(pacing.Duplicate, 5) // already applied
	r.push(pacing.Late, 4, 3)   // older than applied
	r.push(pacing.Late, math.MinInt32)
	r.push(pacing.Queued, 6)
	r.push(pacing.Duplicate, 6)
	st := r.q.Stats()
	require.Equal(t, int64(3), st.Duplicates)
	require.Equal(t, int64(3), st.Dropped)
	require.Equal(t, int64(3), st.Underruns)
	r.tick(pacing.Apply, 6)
}

// TestQueueDrains: past Depth, two per tick, one applied; full, the oldest
// gives way.
func TestQueueDrains(t *testing.T) {
	r := newQueueRun(t, playout.QueueConfig{Depth: 2, Capacity: 4, Start: 1})
	r.push(pacing.Queued, 1)
	r.tick(pacing.Restart, 1)
	r.push(pacing.Queued, 2, 3, 4, 5, 6) // 2 gives way to 6
	require.Equal(t, 4, r.q.Len())
	r.tick(pacing.Coast, 2) // 2 gave way: a gap, coasted once
	r.tick(pacing.Apply, 4) // 3 and 4 taken: 5, 6 wait
	require.Equal(t, 2, r.q.Len())
	r.tick(pacing.Apply, 5)
	r.tick(pacing.Apply, 6)
	st := r.q.Stats()
	require.Equal(t, int64(2), st.Dropped)
	require.Equal(t, int64(1), st.Jumps)

	// A full queue refuses a state older than all it holds.
	r.push(pacing.Queued, 8, 9, 10, 11)
	r.push(pacing.Late, 7)
}

// TestQueueTimelineLost: a state absurdly far ahead is said once, the
// backlog is dropped, and the next tick restarts from the newest.
func TestQueueTimelineLost(t *testing.T) {
	r := newQueueRun(t, playout.QueueConfig{Start: 1, LostAhead: 100})
	r.push(pacing.Queued, 1)
	r.tick(pacing.Restart, 1)
	r.push(pacing.Queued, 2, 3, 101)
	r.push(pacing.TimelineLost, 102)
	r.push(pacing.Queued, 103, 104, 500, 501) // a long backlog: said once
	r.push(pacing.Queued, 499)
	r.tick(pacing.Restart, 501)
	require.Zero(t, r.q.Len(), "the backlog is never played out")
	r.push(pacing.Late, 300)
	r.push(pacing.Queued, 502)
	r.tick(pacing.Apply, 502)
	st := r.q.Stats()
	require.Equal(t, int64(1), st.Restarts)
	require.Zero(t, st.Stalls+st.Jumps)

	// The caller's own verdict.
	r.push(pacing.Queued, 503, 504)
	r.q.LoseTimeline()
	r.q.LoseTimeline()
	r.tick(pacing.Restart, 504)
	require.Equal(t, int64(2), r.q.Stats().Restarts)
	r.q.LoseTimeline() // empty: the next state pushed restarts
	r.tick(pacing.Coast, 505)
	r.push(pacing.Queued, 900)
	r.tick(pacing.Restart, 900)

	// Extreme frame numbers neither panic nor overflow.
	r.push(pacing.TimelineLost, math.MaxInt32)
	r.tick(pacing.Restart, math.MaxInt32)
	r.push(pacing.Late, math.MinInt32)

	r.q.Reset()
	require.Equal(t, playout.QueueStats{}, r.q.Stats())
	require.Zero(t, r.q.Len())
	_, _, ok := r.q.Applied()
	require.False(t, ok)
}

func TestQueueNames(t *testing.T) {
	require.Equal(t, "timeline lost", pacing.TimelineLost.String())
	require.Equal(t, "Admission(9)", pacing.Admission(9).String())
	require.Equal(t, "restart", pacing.Restart.String())
	require.Equal(t, "Outcome(9)", pacing.Outcome(9).String())
}

// A client that stalled runs the steps it owes back to back: the states
// that piled up meanwhile are theirs, one a step. Told how many ticks of
// the catch-up follow, the queue plays them all out, none drained; ticked
// blind it drains the first tick (a jump) and coasts the last.
func TestQueueTickAhead(t *testing.T) {
	for _, blind := range []bool{false, true} {
		q, err := pacing.NewQueue[int32](playout.QueueConfig{Depth: 4, Start: 3})
		require.NoError(t, err)
		f := int32(0)
		for ; f < 3; f++ {
			q.Push(f, &f)
		}
		q.Tick()
		for range 20 { // settled: 3 held after each tick
			q.Push(f, &f)
			f++
			q.Tick()
		}
		require.Equal(t, 2, q.Len())
		for range 5 { // a stall of 5 frames: 5 states arrive, no tick
			q.Push(f, &f)
			f++
		}
		var played []int32
		for i := range 5 {
			ahead := 4 - i
			if blind {
				ahead = 0
			}
			out, fr, _ := q.TickAhead(ahead)
			if out != pacing.Coast {
				played = append(played, fr)
			}
		}
		st := q.Stats()
		if blind {
			require.Positive(t, st.Jumps, "drained blind: the test proves nothing otherwise")
			continue
		}
		require.Zero(t, st.Jumps)
		require.Zero(t, st.Coasted)
		require.Equal(t, []int32{21, 22, 23, 24, 25}, played)
		require.Equal(t, 2, q.Len(), "as deep as before the stall")
	}
}

func TestQueueSetDepth(t *testing.T) {
	q, err := pacing.NewQueue[int32](playout.QueueConfig{Depth: 8})
	require.NoError(t, err)
	require.ErrorIs(t, q.SetDepth(0), rollnet.ErrConfig)
	require.ErrorIs(t, q.SetDepth(24), rollnet.ErrConfig, "Capacity 24: at most 23")
	require.NoError(t, q.SetDepth(4))
	require.Equal(t, 4, q.Config().Depth)
	f := int32(0)
	for ; f < 3; f++ {
		q.Push(f, &f)
	}
	q.Tick()
	for ; f < 10; f++ { // 7 more arrive at once: deeper than 4 drains, two a tick
		q.Push(f, &f)
	}
	q.Tick()
	require.Equal(t, int64(1), q.Stats().Jumps)
	require.Equal(t, 7, q.Len())
	require.NoError(t, q.SetDepth(8))
	q.Tick()
	require.Equal(t, int64(1), q.Stats().Jumps, "deep enough now: no drain")
	require.Equal(t, 6, q.Len())
}
