package pacing

import (
	"fmt"

	"github.com/rollnet/rollnet/playout"
)

// Defaults of QueueConfig.
const (
	// DefaultDepth is the depth a zero QueueConfig.Depth means: a queue
	// that would hold more than 4 states after a tick drains two that tick.
	DefaultDepth = 4
	// DefaultStart is the number of states a zero QueueConfig.Start means
	// the queue holds before it applies its first.
	DefaultStart = 3
	// DefaultLostAhead is the distance a zero QueueConfig.LostAhead means:
	// a state more than 180 frames (3 s at 60 Hz) past the frame shown is a
	// discontinuity.
	DefaultLostAhead = 180
)

// DefaultCapacity is the bound a zero QueueConfig.Capacity means: three
// times the depth, so a client that stopped for a while drains back to the
// depth within a few ticks instead of playing a long backlog out.
const DefaultCapacity = 3 * DefaultDepth

// Admission is what Push concluded about a state.
type Admission uint8

const (
	// Queued: the state is held and will be applied on its tick.
	Queued Admission = iota
	// Duplicate: a state for this frame is already held or was applied.
	// Dropped, counted.
	Duplicate
	// Late: the state is older than the one last applied (or older than
	// everything in a full queue) and can never be applied. Dropped,
	// counted.
	Late
	// TimelineLost: the state is so far ahead of the frame shown that the
	// client's timeline is lost. The queue drops its backlog, keeps the
	// newest state and restarts from it on the next tick; the caller must
	// act: re-anchor its clocks on the restarted stream and drop what it
	// derived from the old one. Said once per discontinuity.
	TimelineLost
)

var admissionNames = [...]string{"queued", "duplicate", "late", "timeline lost"}

// String returns the admission's name.
func (a Admission) String() string {
	if int(a) < len(admissionNames) {
		return admissionNames[a]
	}
	return fmt.Sprintf("Admission(%d)", uint8(a))
}

// Outcome is what a Tick did.
type Outcome uint8

const (
	// Coast: no state applied this tick; the caller keeps predicting its
	// world forward one frame, to the frame Tick returned.
	Coast Outcome = iota
	// Apply: the host's state for the returned frame is this tick's world.
	Apply
	// Restart: the first state of a new timeline (the first ever, or the
	// newest after a discontinuity): the caller takes it whole, as nothing
	// before it is comparable.
	Restart
)

var outcomeNames = [...]string{"coast", "apply", "restart"}

// String returns the outcome's name.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

type queued struct {
	frame int32
	slot  int32
}

// Queue is the paced playout of host states by frame (rule 7): at most one
// state is applied per tick of the client's own; a tick that finds nothing
// coasts; a gap at the head is coasted once, so a state reordered past its
// predecessor waits for it, and then skipped; a queue deeper than Depth
// drains two per tick; it holds at most Capacity states. A state absurdly
// far ahead is a discontinuity, answered by TimelineLost and a Restart from
// the newest, never by playing the backlog out.
//
// States are stored by value in slots allocated once by NewQueue; Push
// copies one in, Tick hands out a pointer to the applied one. A Queue is
// not safe for concurrent use. Push and Tick never allocate.
type Queue[S any] struct {
	cfg   playout.QueueConfig
	slots []S      // Capacity+1: the extra one holds the state last applied
	free  []int32  // stack of free slot indices
	order []queued // held states, ascending by frame
	stats playout.QueueStats

	started bool  // a state has been applied
	restart bool  // a discontinuity was declared; the next tick restarts
	applied int32 // frame of the state last applied
	shown   int32 // frame the caller's world stands for: applied + coasts
	coasts  int   // coasts since the last apply
	cur     int32 // slot of the state last applied, -1 if none
}

// NewQueue returns an empty Queue.
func NewQueue[S any](cfg playout.QueueConfig) (*Queue[S], error) {
	if cfg.Depth == 0 {
		cfg.Depth = DefaultDepth
	}
	if cfg.Depth < 1 || cfg.Depth > 1024 {
		return nil, fmt.Errorf("%w: Depth %d not in [1, 1024]", errConfig, cfg.Depth)
	}
	if cfg.Capacity == 0 {
		cfg.Capacity = 3 * cfg.Depth
	}
	if cfg.Capacity < cfg.Depth+1 || cfg.Capacity > 4096 {
		return nil, fmt.Errorf("%w: Capacity %d not in [Depth+1 = %d, 4096]", errConfig, cfg.Capacity, cfg.Depth+1)
	}
	if cfg.Start == 0 {
		cfg.Start = min(DefaultStart, cfg.Depth)
	}
	if cfg.Start < 1 || cfg.Start > cfg.Depth {
		return nil, fmt.Errorf("%w: Start %d not in [1, Depth = %d]", errConfig, cfg.Start, cfg.Depth)
	}
	if cfg.LostAhead == 0 {
		cfg.LostAhead = max(DefaultLostAhead, cfg.Capacity)
	}
	if cfg.LostAhead < cfg.Capacity || cfg.LostAhead > 1<<24 {
		return nil, fmt.Errorf("%w: LostAhead %d not in [Capacity = %d, 2^24]", errConfig, cfg.LostAhead, cfg.Capacity)
	}
	q := &Queue[S]{
		cfg:   cfg,
		slots: make([]S, cfg.Capacity+1),
		free:  make([]int32, 0, cfg.Capacity+1),
		order: make([]queued, 0, cfg.Capacity),
	}
	q.Reset()
	return q, nil
}

// Config returns the configuration in force, defaults filled in.
func (q *Queue[S]) Config() playout.QueueConfig { return q.cfg }

// Reset forgets every state, the playout position and the counts: the
// queue is as new, and its next apply is a Restart.
func (q *Queue[S]) Reset() {
	q.free = q.free[:0]
	for i := len(q.slots) - 1; i >= 0; i-- {
		q.free = append(q.free, int32(i))
	}
	q.order = q.order[:0]
	q.stats = playout.QueueStats{}
	q.started, q.restart = false, false
	q.applied, q.shown, q.coasts, q.cur = 0, 0, 0, -1
}

// Push offers the host's state for frame and copies *s into the queue
// unless it is refused; the caller keeps *s. See Admission for the
// verdicts. Push never allocates.
func (q *Queue[S]) Push(frame int32, s *S) Admission {
	if q.find(frame) >= 0 {
		q.stats.Duplicates++
		return Duplicate
	}
	lost := int64(q.cfg.LostAhead)
	switch {
	case q.restart || !q.started:
		// No timeline to lose: keep the newest, and the states near it.
		if n := len(q.order); n > 0 {
			newest := int64(q.order[n-1].frame)
			if int64(frame) > newest+lost {
				q.dropAll()
			} else if int64(frame) < newest-lost {
				q.stats.Dropped++
				return Late
			}
		}
	default:
		if frame == q.applied {
			q.stats.Duplicates++
			return Duplicate
		}
		if frame < q.applied {
			q.stats.Underruns++
			q.stats.Dropped++
			return Late
		}
		if int64(frame) > int64(q.shown)+lost {
			q.dropAll()
			q.insert(frame, s)
			q.restart = true
			q.stats.Restarts++
			return TimelineLost
		}
		if frame <= q.shown {
			q.stats.Underruns++ // its tick was coasted; still better late
		}
	}
	if !q.insert(frame, s) {
		q.stats.Dropped++
		return Late
	}
	return Queued
}

// LoseTimeline is the caller's own verdict that the timeline is lost (a
// resume refused, a backlog discarded by the transport): the next tick
// restarts from the newest state held, or from the next one pushed. Counted
// as a restart unless one is already pending.
func (q *Queue[S]) LoseTimeline() {
	if !q.restart && q.started {
		q.stats.Restarts++
	}
	q.restart = q.started
}

// Tick runs the queue for one tick of the client and returns what the tick
// does. For Apply and Restart, frame is the state's frame and s points at
// the state, valid until the next Push, Tick, LoseTimeline or Reset; the
// caller may modify it. For Coast, frame is the frame the caller's world
// coasts to and s is nil. Tick never allocates.
func (q *Queue[S]) Tick() (out Outcome, frame int32, s *S) { return q.TickAhead(0) }

// TickAhead is Tick for a tick that ahead more ticks follow at once: a
// client catching up after a stall (its timestep owes it several steps)
// runs them back to back, and the states that piled up while it stalled
// are theirs to apply, one each. So the drain waits until more than
// Depth+ahead states would still wait after this apply; drained at the
// first of the catch-up's ticks, they were jumps the next ticks would have
// played. A negative ahead counts as 0. TickAhead never allocates.
func (q *Queue[S]) TickAhead(ahead int) (out Outcome, frame int32, s *S) {
	q.release()
	n := len(q.order)
	switch {
	case n == 0:
		return q.coast()
	case q.restart:
		q.dropOldest(n - 1)
		return q.take(Restart)
	case !q.started:
		if n < q.cfg.Start {
			return Coast, 0, nil // nothing to coast from yet
		}
		q.dropOldest(n - q.cfg.Start) // a burst: start Start from the newest
		return q.take(Restart)
	}
	if int64(q.order[0].frame) > int64(q.applied)+1 && q.coasts == 0 {
		return q.coast() // a gap: wait one tick for its state
	}
	if n-1 > q.cfg.Depth+max(ahead, 0) { // more than Depth (and the ticks to come) would wait after this apply
		q.dropOldest(1)
	}
	return q.take(Apply)
}

// SetDepth changes the depth past which the queue drains (QueueConfig.Depth)
// to d, in [1, Capacity-1], for a caller that sizes it to the stream as it
// goes: deeper under jitter, shallower when it passes. States held beyond
// a smaller depth drain two per tick as usual. It never allocates.
func (q *Queue[S]) SetDepth(d int) error {
	if d < 1 || d >= q.cfg.Capacity {
		return errConfig // unwrapped: this path must not allocate
	}
	q.cfg.Depth = d
	return nil
}

// Started reports whether a state has been applied since the queue was
// made or Reset: before that, a Coast has nothing to coast from.
func (q *Queue[S]) Started() bool { return q.started }

// Len returns how many states are held.
func (q *Queue[S]) Len() int { return len(q.order) }

// Frame returns the frame the caller's world stands for after the last
// tick: the last applied frame plus the coasts since. Zero before the first
// apply.
func (q *Queue[S]) Frame() int32 { return q.shown }

// Applied returns the frame and state of the last apply, valid as the
// pointer Tick returned; ok is false if the last tick applied nothing.
func (q *Queue[S]) Applied() (frame int32, s *S, ok bool) {
	if q.cur < 0 {
		return 0, nil, false
	}
	return q.applied, &q.slots[q.cur], true
}

// Newest returns the newest frame held; ok is false if the queue is empty.
func (q *Queue[S]) Newest() (frame int32, ok bool) {
	if len(q.order) == 0 {
		return 0, false
	}
	return q.order[len(q.order)-1].frame, true
}

// Stats returns the counts since the queue was made or Reset.
func (q *Queue[S]) Stats() playout.QueueStats { return q.stats }

func (q *Queue[S]) coast() (Outcome, int32, *S) {
	if !q.started {
		return Coast, 0, nil
	}
	q.shown++
	q.coasts++
	q.stats.Coasted++
	return Coast, q.shown, nil
}

// take applies the head of the queue.
func (q *Queue[S]) take(out Outcome) (Outcome, int32, *S) {
	h := q.order[0]
	copy(q.order, q.order[1:])
	q.order = q.order[:len(q.order)-1]
	if out == Apply {
		switch adv := int64(h.frame) - int64(q.shown); {
		case adv <= 0:
			q.stats.Stalls++
		case adv > 1:
			q.stats.Jumps++
		}
	}
	q.started, q.restart = true, false
	q.applied, q.shown, q.coasts, q.cur = h.frame, h.frame, 0, h.slot
	q.stats.Applied++
	return out, h.frame, &q.slots[h.slot]
}

// release frees the slot of the state last applied.
func (q *Queue[S]) release() {
	if q.cur >= 0 {
		q.free = append(q.free, q.cur)
		q.cur = -1
	}
}

// insert copies *s into a free slot and holds it in frame order; false if
// the queue is full and frame is older than everything held.
func (q *Queue[S]) insert(frame int32, s *S) bool {
	if len(q.order) == q.cfg.Capacity {
		if frame < q.order[0].frame {
			return false
		}
		q.dropOldest(1)
	}
	slot := q.free[len(q.free)-1]
	q.free = q.free[:len(q.free)-1]
	q.slots[slot] = *s
	i := len(q.order)
	for i > 0 && q.order[i-1].frame > frame {
		i--
	}
	q.order = q.order[:len(q.order)+1]
	copy(q.order[i+1:], q.order[i:])
	q.order[i] = queued{frame: frame, slot: slot}
	return true
}

// find returns the index of frame among the held states, or -1.
func (q *Queue[S]) find(frame int32) int {
	for i, e := range q.order {
		if e.frame == frame {
			return i
		}
	}
	return -1
}

// dropOldest discards the k oldest held states.
func (q *Queue[S]) dropOldest(k int) {
	for _, e := range q.order[:k] {
		q.free = append(q.free, e.slot)
	}
	q.order = q.order[:copy(q.order, q.order[k:])]
	q.stats.Dropped += int64(k)
}

func (q *Queue[S]) dropAll() { q.dropOldest(len(q.order)) }
