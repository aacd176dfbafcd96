package netplay

import (
	"slices"
	"time"
)

// DelayBounds bounds the input delay a P2P match chooses. The zero value
// means Min 1, Max 4. Min == Max fixes the delay without measuring.
//
// The delay is chosen once, from the round trips measured before the
// match, unless Follow is set: then it also follows the network during
// the match, within [Min, Max] (p2p.Config.MaxInputDelay): when the
// round trip moves past a hysteresis the peers agree on a new delay at
// an agreed frame (Status.InputDelay, Stats.DelayChanges, a News line). A
// grown delay repeats the previous input for the frames between; a
// shrinking one drops one tick's input per frame it shrinks, one frame
// every two ticks. Every player must choose the same Follow.
//
// Follow is off by default: a fighting game's players time their links
// and combos against the delay they have, and a change mid-round moves
// that timing (and may drop a one-tick press); the fixed delay chosen
// before the match stays what it was. Turn it on where rollbacks cost
// more than a changing delay, or for players on links that change (mobile
// data, a shared Wi-Fi).
type DelayBounds struct {
	Min, Max int
	Follow   bool
}

// rttSamples is how many round trips to each player a proposal waits for.
const rttSamples = 5

// delayFor is the input delay that covers half of rtt at fps frames a
// second, within b: ceil((rtt/2) / frame).
func delayFor(rtt time.Duration, fps int, b DelayBounds) int {
	frame := time.Second / time.Duration(fps)
	d := int((rtt/2 + frame - 1) / frame)
	return min(max(d, b.Min), b.Max)
}

// rttWindow keeps the last round trips measured to one peer.
type rttWindow struct {
	s [rttSamples]time.Duration
	n int
}

func (w *rttWindow) add(d time.Duration) {
	w.s[w.n%rttSamples] = d
	w.n++
}

// median is the median sample; ok once there are rttSamples of them.
func (w *rttWindow) median() (time.Duration, bool) {
	if w.n < rttSamples {
		return 0, false
	}
	s := w.s
	slices.Sort(s[:])
	return s[rttSamples/2], true
}
