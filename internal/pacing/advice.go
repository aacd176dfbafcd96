package pacing

import "math"

// Advice is a host's time-dilation advice to one client, from how early
// the client's inputs arrive: the whole-world host's (authority) and the
// entity host's (netplay's entity mode) alike. The caller notes each
// message's newest input (Heard) and, once per host tick, the input the
// tick needs (Advise); Rate is then the change of the client's tick rate
// to ask for, in thousandths (0.05: 5% fast is 50). It reads no clock
// and does not allocate.
//
// The margin is how many of the client's inputs from the needed one on
// the host has heard of when the tick needs it (the newest input of its
// messages: a backlog sent oldest first does not make it look late), 1
// just on time, 0 or less: the tick goes without it; one sample per host
// tick, so what decides is what the simulation met: the client's stalls
// (its inputs stop while the host goes on), the host's own (it catches
// up on ticks back to back), the network's jitter, all in one number,
// and a burst of packets after a stall counts once, not once per packet.
//
// The advice holds the mean margin (smoothed, it follows the lead at
// once) at the target, or deeper by the tail's shortfall: how far the
// low quantile of the last 4 s of margins (about the 0.5th percentile)
// fell below the mean at the time, so that the latest-arriving inputs
// are on time (a margin of target-1 or more). The tail is kept as
// deviations from the mean, a property of the jitter and the stalls, not
// of the lead: a quantile of the margins themselves remembers the old
// lead for the window's length, and holding it drove the lead up and
// down in a cycle of twice the window. On a quiet machine the tail is
// within a tick of the mean and the target decides.
//
// The advice is a proportional term, 1.5% per tick of shortfall past
// half a tick (within it, none: a rate off 1 makes the client's paced
// playout jump or stall a tick per tick of drift, so it must not hunt),
// plus the client clock's own rate, estimated as how fast the mean
// drifts beyond what the advice asked, over 4 s. An integral of the
// error held that rate before; it wound up on every long approach (a
// client anchored ticks ahead) into an overshoot: on a quiet machine the
// overshoot made inputs late until the client re-anchored far ahead and
// approached again, a cycle of a few seconds, the advice at -5% to -10%
// at the end of the match and 50 to 75 playout jumps in 1200 frames. The
// drift during an approach is what the advice asked, so the estimate
// stays at the clock's.
type Advice struct {
	m        margins
	rate     int32   // thousandths
	skew     float64 // the advice that cancels the client clock's own rate, estimated, in thousandths
	asked    float64 // the advice, smoothed as the margins' mean is
	skewHold int     // margins before the skew estimate takes the mean's drift again
	held     int     // ticks held since the last margin (Held)
}

// AdviceMaxTail bounds the tail's shortfall the advice deepens the lead
// for, in ticks (100 ms at 60 Hz): a stall longer than that (seen now
// and then beside a CPU hog: 150 to 300 ms) makes its inputs late,
// rolled back or applied late, rather than the lead of the next 4 s that
// long.
const AdviceMaxTail = 6

// steadyRate is the largest advice, in thousandths, under which the
// margins' deviations are the tail's: 2% moves the lead 1.2 ticks a
// second, a lag of the mean of a fraction of a tick.
const steadyRate = 20

// marginWindow is 4 s of a 60 Hz host's ticks; marginRank the rank of
// the deviation tail holds, 1-based: the 2nd lowest of 240, about the
// 0.5th percentile (none is used before marginMin samples). The 3rd
// lowest left 8 inputs late in 27 s of authority's
// TestTimeDilationJitterAndHog where the 2nd and the lowest left 2, for
// a lead 0.4 ticks deeper; the 2nd is not moved by one sample alone.
const (
	marginWindow = 240
	marginRank   = 2
	marginMin    = 60
	marginBins   = 256 // deviations of -32 to 31.75 ticks, clamped
)

// margins keeps a client's input margins: their smoothed mean, and the
// last marginWindow deviations from it, in quarter ticks, in a ring and
// a histogram of the ring, so the low quantile is a walk of the bins,
// not a sort.
type margins struct {
	newest  int32 // the newest input of the connection's messages
	heardAt int32 // the host's tick when the last of them arrived
	present bool  // newest is set
	ring    [marginWindow]int8
	hist    [marginBins]uint16
	next    int
	n       int
	mean    float64 // smoothed over about 16 ticks
	seen    bool
}

// Heard notes a message whose newest input is newest, arrived at host
// tick at.
func (a *Advice) Heard(newest, at int32) {
	m := &a.m
	m.heardAt = at
	if !m.present || newest > m.newest {
		m.newest, m.present = newest, true
	}
}

// Restart forgets the connection's newest input and the tail: a new
// connection (a resume's too) starts them again; the mean and the
// advice go on.
func (a *Advice) Restart() {
	a.m.present, a.m.n, a.m.next = false, 0, 0
	a.m.hist = [marginBins]uint16{}
}

// Reset starts the advice over for a new client (after Restart).
func (a *Advice) Reset() {
	a.skew, a.asked, a.rate, a.skewHold = 0, 0, 0, 0
	a.m.seen = false
}

// Held notes a tick that went without the client's input, when the host
// holds its inputs' timeline instead (the entity host: it applies the
// last input again and the next one a tick later). The lead grows by a
// tick the client did not send, which the clock's rate estimate must not
// take for the client's: a client 2% slow was otherwise held every 50
// ticks, its mean margin steady and the advice at 0.
func (a *Advice) Held() { a.held++ }

// Rate is the advice: the change of the client's tick rate, in
// thousandths.
func (a *Advice) Rate() int32 { return a.rate }

// Skew is the advice that cancels the client clock's own rate, as
// estimated, in thousandths.
func (a *Advice) Skew() float64 { return a.skew }

// Margin is the smoothed mean margin, in ticks (0 before the first).
func (a *Advice) Margin() float64 { return a.m.mean }

// Advise samples the client's input margin when host tick now needs
// input need (in the whole world both are the frame about to be
// simulated) and updates the advice toward target, within ±maxRate
// thousandths. Before the first input heard it does nothing.
func (a *Advice) Advise(need, now int32, target, maxRate int) {
	m := &a.m
	if !m.present {
		return
	}
	// A client silent longer than the lead would ever cover is cut off,
	// not late: its margins say nothing of the lead it needs (taken, a
	// second's outage left the advice at +10% for seconds after it).
	// Silence is the host ticks since its last message, not its margin:
	// a client that talks every tick but far behind (one that anchored
	// late) was taken for silent, never advised, and stayed 7 to 22
	// frames late for the rest of the match, its inputs waiting up to
	// two seconds in the late queue.
	if now-m.heardAt > int32(target+AdviceMaxTail) {
		return
	}
	d := int(m.newest - need + 1)
	was := m.mean
	first := !m.seen
	// While the lead moves fast the deviations from the mean are its lag,
	// not the jitter's: the tail keeps what it had.
	m.add(d, max(a.rate, -a.rate) <= steadyRate)
	// The clock's own rate (negated: what cancels it), from the mean's
	// drift in thousandths of a tick per tick, less the advice asked
	// (smoothed as the mean is, so lagged alike).
	// A margin far from the mean (a stall's dip, a re-anchor's step) moves
	// the mean for a while by what is not a clock's rate: the estimate
	// waits until the mean has taken it (a re-anchor 5 ticks ahead would
	// read as -2% for the next seconds).
	lim := float64(maxRate)
	a.asked += (float64(a.rate) - a.asked) / 16
	// Far is past the tail the margins usually dip by (a client whose
	// ticks come in bursts swings by the burst every few ticks: under a
	// fixed 2 the estimate never ran).
	tail, tailOK := m.tail()
	if math.Abs(float64(d)-was) > 2+tail {
		a.skewHold = 32
	}
	held := float64(a.held)
	a.held = 0
	switch {
	case first:
	case a.skewHold > 0:
		a.skewHold--
	default:
		// (A held tick raises the margins by one, which the mean takes
		// over the next ticks: counted against the drift at once, the
		// estimate, smoothed over 240, sees none of it.)
		drift := 1000 * (m.mean - was - held)
		a.skew = max(-lim, min(lim, a.skew+(a.asked-drift-a.skew)/240))
	}
	want := float64(target)
	if tailOK {
		want = max(want, float64(target-1)+min(tail, AdviceMaxTail))
	}
	e := want - m.mean // ticks short
	const (
		kp   = 15.0 // thousandths per tick of error
		band = 0.5  // ticks of error the proportional term ignores
	)
	switch {
	case e > band:
		e -= band
	case e < -band:
		e += band
	default:
		e = 0
	}
	a.rate = int32(max(-lim, min(lim, kp*e+a.skew)))
}

// add takes a margin into the mean, and its deviation from the mean into
// the tail's window if tail is true.
func (m *margins) add(margin int, tail bool) {
	d := float64(margin)
	if !m.seen {
		m.mean, m.seen = d, true
	}
	if tail {
		q := int(math.Round(4 * (d - m.mean)))
		q = max(-marginBins/2, min(marginBins/2-1, q))
		if m.n == marginWindow {
			m.hist[int(m.ring[m.next])+marginBins/2]--
		} else {
			m.n++
		}
		m.ring[m.next] = int8(q)
		m.hist[q+marginBins/2]++
		m.next = (m.next + 1) % marginWindow
	}
	m.mean += (d - m.mean) / 16
}

// tail is how many ticks the marginRank-th lowest deviation held lies
// below the mean (0 if none does); ok once marginMin are held.
func (m *margins) tail() (float64, bool) {
	if m.n < marginMin {
		return 0, false
	}
	k := 0
	for i, h := range m.hist {
		if k += int(h); k >= marginRank {
			return max(0, -float64(i-marginBins/2)/4), true
		}
	}
	return 0, true
}
