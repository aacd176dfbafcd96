// Package impair makes any transport.Transport a bad network: it wraps one
// and delays, loses, duplicates and reorders its datagrams, both what it
// sends and what it receives, on the wall clock. Use it to play or test a
// game under latency over a real transport (WebRTC, QUIC):
//
//	tr, err := impair.New(rtc, impair.Config{Out: bad, In: bad, Seed: 1})
//
// # One link model, two clocks
//
// A direction is described by a transport/local.Link (latency, jitter,
// loss, burst loss, duplicates, reordering, ordered) and each datagram's
// fate is drawn by the same model transport/local's Network applies on its
// injected clock: an impairment means the same thing in a protocol test on
// fake time and in a game on a real network. The out direction's model is
// seeded as a Network seeds the direction from Local() to "out", the in
// direction's to "in", so a seed gives the same fates to the same
// sequence of datagrams. The impairment is this endpoint's own access link:
// every peer's datagrams share each direction's model (and its burst state).
// Partitions are local's alone.
//
// # Time
//
// A datagram received from the wrapped transport is held until its
// delivery time, counted from the Receive call that took it in (so a game
// polling once a tick adds up to a tick to the In latency), and handed to
// the caller by the first Receive at or after it. A datagram sent is held and passed to the wrapped transport at its
// delivery time by one goroutine (a timer), started by New and stopped by
// Close. Both read time.Now, so tests run on fake time inside
// testing/synctest.
//
// # Memory
//
// Each direction holds at most Config.QueueLen datagrams; a datagram that
// finds its line full is dropped and counted (Stats.DroppedFull). Buffers of
// transport.MaxDatagram bytes are allocated as the lines first fill and
// reused: Send and Receive allocate nothing once warm.
//
// The wrapper implements transport.Expecter by forwarding to the wrapped
// transport when it does (and doing nothing otherwise), and is safe for
// concurrent use.
package impair
