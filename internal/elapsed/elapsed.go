// Package elapsed measures the time since a clock reading as
// time.Time.Sub does, and cheaply from a reading without a monotonic
// clock reading: an injected clock's (a test's fake clock, a game's own),
// for which Sub checks its result for overflow by adding it back and
// comparing, about a hundred instructions, several times a tick.
package elapsed

import "time"

// limit bounds the Unix seconds of readings subtracted as seconds and
// nanoseconds (about 1824 to 2115): the difference in nanoseconds of two
// such readings does not overflow.
const limit = 4_600_000_000

// Origin is a reading the time is measured from.
type Origin struct {
	start time.Time
	plain bool  // start carries no monotonic reading and lies within limit
	sec   int64 // start's Unix seconds, when plain
	nsec  int64
}

// From returns the origin start.
func From(start time.Time) Origin {
	o := Origin{start: start, sec: start.Unix(), nsec: int64(start.Nanosecond())}
	o.plain = start == start.Round(0) && o.sec > -limit && o.sec < limit // Round(0) strips the monotonic reading
	return o
}

// Nanos returns t.Sub(start) in nanoseconds. From an origin without a
// monotonic reading Sub subtracts the wall clock's seconds and nanoseconds,
// as Nanos does itself while the result cannot overflow; anything else is
// Sub's.
func (o *Origin) Nanos(t time.Time) int64 {
	if o.plain {
		if s := t.Unix(); s > -limit && s < limit {
			return (s-o.sec)*1e9 + int64(t.Nanosecond()) - o.nsec
		}
	}
	return int64(t.Sub(o.start))
}
