// Package pacing holds the pieces behind an authoritative client's
// presentation (authority.Client's Update, RenderTime and PlayoutAt): the
// paced playout queue, the render clock, the state history and the link
// estimators. Their configuration and counts are public in package playout
// (QueueConfig, ClockConfig, QueueStats), whose Timestep and Smoother a game
// uses directly. Each piece stands alone; none reads a clock, opens a socket
// or starts a goroutine: the caller passes frame times, frame numbers and
// samples in, and reads steps, states and estimates out.
//
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
//   - History keeps the states of the newest frames by frame, and gives the
//     two to blend (and the weight) for the Clock's T, bridging a frame the
//     playout jumped over and holding at the newest.
//   - Advice is a host's time-dilation advice to one client from how
//     early its inputs arrive (their margin): the whole-world host's and
//     the entity host's.
//   - RTT (RFC 6298 mean, deviation, minimum), ClockSync (offset and skew
//     by least squares over a window) and Arrival (send interval between
//     declared frames, lateness, jitter, the render delay a stream needs)
//     size buffers and report. They never choose the frame shown: that is
//     the host's declared frame numbers' job.
//
// # How they fit
//
// A client runs one playout.Timestep whose step is the host's tick and whose
// scale is the host's time-dilation advice. States that arrive are pushed
// into the Queue as they come and take effect only as the next step opens:
// each step calls Queue.Tick once and applies, coasts or restarts its world.
// The client draws its own players from its predicted present, blended at
// Timestep.Alpha, plus a playout.Smoother's offset after a correction;
// entities it does not control are drawn at the Clock's T from a History of the states
// the Queue applied (or the caller coasted), each frame also fed to
// Clock.ObserveAt with Timestep.Pending as
// each step runs. On TimelineLost (or a Restart) the caller drops what it
// derived from the old stream and calls Clock.Reset.
//
// The defaults are measured, not guessed. Over the seed's wire (2 ticks of
// latency, 3 of jitter, 5% duplicates) the Queue's defaults (Start 3, Depth
// 4, Capacity 12) play 1200 ticks with no stall, jump or coast on every
// one of 300 seeded links (Start 2 failed that on 137 of them, Start 1 on
// 280). The Clock's default delay of 3 frames draws a host entity over
// 45 ± 20 ms with 5% loss without a hitch at 144 Hz and 60 Hz on 100 of 100
// links; a delay of 2 hitched on a third of them at 60 Hz.
//
// # Contract
//
// Every Config's zero value means the documented defaults; a field out of
// its range makes the constructor return an error wrapping errConfig
// that names it. After construction no method allocates (asserted by the tests
// with testing.AllocsPerRun, and 0 B/op in the benchmarks). Frames are
// int32 host frame numbers; times are time.Duration on any monotonic clock.
// Nothing here is safe for concurrent use.
package pacing
