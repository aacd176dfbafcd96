package netplay

import (
	"slices"
	"time"
)

// DelayBounds bounds the input delay a P2P match chooses. The zero value
// means Min 1, Max 4. Min == Max fixes the delay without measuring.
type DelayBounds struct{ Min, Max int }

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
