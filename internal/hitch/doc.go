// Package hitch is the measurement behind the playout package's promise:
// a model host and client over an impaired link, drawn frame by frame, and
// the displacement of constant-velocity entities on every drawn frame. A
// hitch is a drawn frame that moves less than half or more than one and a
// half times the typical travel per frame.
//
// Run plays one scenario in fake time. The host steps at a fixed rate and
// sends its state each step over a link with latency, jitter (so states
// reorder) and loss. The client draws at its own rate and runs each frame
// in a browser's order: update (the fixed steps the frame pays for, each
// opening with what arrived before it), then the network delivers, then the
// frame is drawn. Three views are measured:
//
//   - the client's own predicted entity, blended between its last two steps
//     at playout.Timestep's alpha, under a time dilation that changes now
//     and then;
//   - a host entity drawn on the client in the past: paced, through a
//     pacing.Queue and drawn at pacing.Clock's render time; unpaced,
//     applied the moment it arrives and blended at the local alpha;
//   - the host's own entity, as the host draws it.
//
// The package exists so the test and the bench plot measure the same thing;
// it allocates freely and is not a per-frame API.
package hitch
