// Package playout holds what a game uses directly to present a networked
// simulation smoothly: a fixed timestep and an error smoother. Neither reads
// a clock, opens a socket or starts a goroutine: the caller passes frame
// times and corrections in, and reads steps and offsets out.
//
//   - Timestep turns variable frame time into whole fixed steps (the
//     network tick) plus an alpha for drawing between the last two. Its time
//     scale dilates the cadence by at most MaxScale and never skips or
//     doubles a step to do it; MaxSteps caps the steps per frame so a
//     stalled process catches up without spiralling.
//   - Smoother is a visual offset that hides a correction in what is drawn
//     and decays by a fraction per step; Snap is for teleports.
//
// An authoritative client (package authority) also runs a paced playout
// queue and a render clock for the states the host sends; their settings
// are QueueConfig and ClockConfig here (authority.PlayoutConfig), and their
// counts QueueStats (authority.Client.PlayoutStats).
//
// # Contract
//
// Every Config's zero value means the documented defaults; a field out of
// its range makes the constructor return an error wrapping rollnet.ErrConfig that
// names it. After construction no method allocates (asserted by the tests
// with testing.AllocsPerRun, and 0 B/op in the benchmarks). Times are
// time.Duration on any monotonic clock. Nothing here is safe for concurrent
// use.
package playout
