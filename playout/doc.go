// Package playout holds the client's clocks and the paced playout of a
// server-authoritative client: the pieces that decide when things happen
// and what is drawn, so that what a player sees moves smoothly over a real
// link. Each piece stands alone; none reads a clock, opens a socket or
// starts a goroutine: the caller passes frame times, frame numbers and
// samples in, and reads steps, states and estimates out.
//
//   - Timestep turns variable frame time into whole fixed steps (the
//     network tick) plus an alpha for drawing between the last two. Its time
//     scale dilates the cadence by at most MaxScale and never skips or
//     doubles a step to do it; MaxSteps caps the steps per frame so a
//     stalled process catches up without spiralling.
//   - Queue is the paced queue of host states by frame: at most one applied
//     per tick; a tick that finds nothing coasts; a gap at the head is
//     coasted once, then skipped; deeper than Depth drains two per tick; at
//     most Capacity held. A state absurdly far ahead is a discontinuity:
//     Push says TimelineLost once, the next Tick restarts from the newest
//     state, and the backlog is never played out. It counts applied,
//     coasted, stalls, jumps, underruns, restarts, dropped and duplicates.
//   - Clock is the interpolation clock: one render time T per drawn frame,
//     a render delay behind the newest host frame, started once a whole
//     delay is available, free-running, steered by rate within ±MaxRate and
//     never by snapping.
//   - Smoother is a visual offset that hides a correction in what is drawn
//     and decays by a fraction per step; Snap is for teleports.
//   - RTT (RFC 6298 mean, deviation, minimum), ClockSync (offset and skew
//     by least squares over a window) and Arrival (send interval between
//     declared frames, lateness, jitter, the render delay a stream needs)
//     size buffers and report. They never choose the frame shown: that is
//     the host's declared frame numbers' job.
//
// # How they fit
//
// A client runs one Timestep whose step is the host's tick and whose scale
// is the host's time-dilation advice. States that arrive are pushed into
// the Queue as they come and take effect only as the next step opens: each
// step calls Queue.Tick once and applies, coasts or restarts its world. The
// client draws its own players from its predicted present, blended at
// Timestep.Alpha, plus a Smoother's offset after a correction; entities it
// does not control are drawn at the Clock's T from the states the Queue
// applied, fed to Clock.Observe as they are applied. On TimelineLost the
// caller drops what it derived from the old stream and calls Clock.Reset.
//
// # Contract
//
// Every Config's zero value means the documented defaults; a field out of
// its range makes the constructor return an error wrapping ErrConfig that
// names it. After construction no method allocates (asserted by the tests
// with testing.AllocsPerRun, and 0 B/op in the benchmarks). Frames are
// int32 host frame numbers; times are time.Duration on any monotonic clock.
// Nothing here is safe for concurrent use.
package playout
