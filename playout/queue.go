package playout

// QueueConfig configures the paced queue of host states an authoritative
// client plays out (authority.PlayoutConfig.Queue): at most one state applied
// per step, a tick that finds nothing coasts, a gap at the head is coasted
// once then skipped, a queue deeper than Depth drains two per tick. The zero
// value of every field means its documented default.
type QueueConfig struct {
	// Capacity bounds the states held. When full, a newer state displaces
	// the oldest (counted as dropped). Zero means 3×Depth. Range
	// [Depth+1, 4096].
	Capacity int
	// Depth is how deep the queue may run: a tick after whose apply more
	// than Depth states would still wait drops the oldest and applies the
	// next, so a backlog drains two per tick and a settled queue holds at
	// most Depth between ticks. Zero means 4. Range [1, 1024].
	Depth int
	// Start is how many states must be held before the first is applied,
	// so the stream starts with a cushion against jitter instead of
	// coasting for want of one; if a burst brought more, the first applied
	// is the Start-th newest and the older ones are dropped. Zero means
	// 3 (or Depth, if smaller). Range [1, Depth].
	Start int
	// LostAhead is how far past the frame shown a state may be before it
	// is a discontinuity (the client stopped while the host went on): the
	// queue drops its backlog and the next tick restarts from the newest
	// state, counted in Restarts. Zero means 180 (3 s at 60 Hz). Range
	// [Capacity, 1<<24].
	LostAhead int
}

// QueueStats are the paced queue's counts since it was made or reset
// (authority.Client.PlayoutStats).
type QueueStats struct {
	// Applied counts ticks that applied a state (Apply or Restart).
	Applied int64
	// Coasted counts ticks that applied nothing.
	Coasted int64
	// Stalls counts applies that did not advance the frame shown: the state
	// was for a frame the caller had already coasted through (it came late).
	Stalls int64
	// Jumps counts applies that advanced the frame shown by more than one:
	// a gap skipped after its coast, or a drain.
	Jumps int64
	// Underruns counts states that arrived after the playout had passed
	// their frame: the render delay was short for the link.
	Underruns int64
	// Restarts counts discontinuities survived, one per timeline lost
	// however large its backlog.
	Restarts int64
	// Dropped counts states discarded without being applied: late,
	// displaced from a full queue, drained, or a lost timeline's backlog.
	Dropped int64
	// Duplicates counts states for a frame already held or applied.
	Duplicates int64
}
