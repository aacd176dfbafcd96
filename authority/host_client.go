package authority

import (
	"math"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport"
)

// inputRing is how many frames of one client's inputs a host holds, by
// frame: InputAhead ahead plus the rollback window behind, rounded up.
const inputRing = 128

// lateCap bounds the late inputs waiting to be applied, per client, in
// frames.
const lateCap = 256

type clientState uint8

const (
	clientFree clientState = iota
	clientConnected
	clientAway // silent past the timeout: slots predicted, token valid for the grace window
)

// HostClientStats are a host's statistics of one of its clients
// (Host.Clients); the client's own are ClientStats.
type HostClientStats struct {
	Peer      transport.Peer
	First     int // first slot
	Slots     int
	Connected bool
	Away      bool // silent past HostConfig.Timeout, inside the grace window
	// Depth is how many frames early the client's inputs arrive, smoothed;
	// Rate the advised change of its tick rate (0.05: 5% fast).
	Depth float64
	Rate  float64
	// LateInputs counts input frames that arrived after their frame was
	// simulated; LateApplied those applied at a later frame (LateApply),
	// LateRolledBack those the host rolled back for (LateRollback),
	// LateDropped those lost to a full queue. InputsLost counts frames
	// never received (a gap wider than the client's redundancy).
	LateInputs, LateApplied, LateRolledBack, LateDropped, InputsLost uint64
	// LateSuperseded counts late inputs dropped because the client's own
	// newer inputs held the frames they waited for (see LateApply);
	// Displaced the client's on-time inputs not applied because a resume's
	// backlog held their frame (BacklogApply). Every late input is
	// applied, rolled back for, superseded, dropped, or still waiting.
	LateSuperseded, Displaced uint64
	// SightsTooOld counts frames whose sight (lag compensation) was older
	// than HostConfig.MaxRewind behind the frame it was applied at, moved
	// up to it; SightsTooNew sights that named a state never sent to the
	// client, moved down to the newest sent; SightJumps sights whose
	// render time moved more than two frames off the frames between them
	// (a render clock moves about one frame a frame: a client picking its
	// view shot by shot jumps).
	SightsTooOld, SightsTooNew, SightJumps uint64
	// PredictedInputs counts frames simulated without the client's input;
	// TooEarly input frames past InputAhead, not held (the client sends
	// them again, and the advice slows it).
	PredictedInputs, TooEarly uint64
	// StatesSent counts state bodies sent, FullStates those not
	// delta-coded; StatesDeferred states not sent: a full state before
	// the previous one was acknowledged, or past HostConfig.ClientBudget.
	StatesSent, FullStates, StatesDeferred uint64
	// NacksServed counts Nacks answered, NacksRefused those past the
	// bound (or for bodies no longer kept), FragmentsResent the fragments
	// they resent.
	NacksServed, NacksRefused, FragmentsResent uint64
	// Replayed counts inputs and Nacks that carried a sequence number
	// already taken on this connection (copies: a replayer's or the
	// network's), dropped unread.
	Replayed uint64
	// Flooded counts packets over MaxPacketsPerTick, dropped;
	// HellosIgnored Hellos after the one answered. Packets that did not
	// decode or made impossible claims (an ack of a state never sent,
	// inputs too far ahead, another input size) are Link.Malformed.
	Flooded, HellosIgnored uint64
	// Link is the connection's link statistics: round-trip time, bytes
	// per second each way, packet and byte totals, malformed packets
	// (Link.Malformed counts those this package dropped too).
	Link rollnet.PeerStats
}

// hostClient is the host's record of one client slot group.
type hostClient[I comparable] struct {
	state     clientState
	peer      transport.Peer
	first     int
	token     [wire.TokenLen]byte
	nonce     uint64
	kind      wire.WelcomeKind // the answer decided for this connection
	welcomes  int              // copies still to send
	welcomeAt int64
	joinAt    int64 // when the Hello was answered (the join timeout counts from it)
	reject    bool  // a RESUME_REJECT goes before each copy of the answer
	awaySince int64
	played    bool       // a valid input came on this record: a player, not a bare Hello
	l         *link.Link // the link of this record's connection now
	pkts      int        // packets read this tick

	// inputs, [frame%inputRing*slots + j], valid where tags[frame%inputRing] == frame
	inputs []I
	tags   []rollnet.Frame
	sent   []bool          // LateRollback: the frame's inputs were given to the core session
	heard  rollnet.Frame   // newest input frame received
	late   []I             // FIFO of late frames, [k*slots + j]
	lateAt []rollnet.Frame // the host frame each late input arrived at
	lateHd int
	lateN  int
	// backlogN is how many late frames at the head of the queue are a
	// resume's backlog, applied before anything else: the late inputs a
	// resumed connection brings before its first on-time one (resuming).
	backlogN int
	resuming bool
	last     []I // per slot: the input used at the newest simulated frame
	// sights are the frames' sights, beside inputs (lag compensation);
	// lateSight the late frames', beside late; sightLast the newest
	// received, for SightJumps; popped the sight of the frame popLate
	// returned last.
	sights    []claim
	lateSight []claim
	sightLast claim
	popped    claim

	ack      rollnet.Frame // newest state frame the client acknowledged
	sentUpTo rollnet.Frame // newest state frame sent it
	// The chain (see Host.base): ackHigh is the greatest acknowledgement
	// heard on this connection, ackAt the host frame it last rose at,
	// cleanFrom the frame since which the acknowledgements rose one
	// state at a time; chained says states go coded against the previous
	// one sent, since chainFrom, once the acknowledgements were clean for
	// hold frames.
	ackHigh, ackAt, cleanFrom rollnet.Frame
	chained                   bool
	chainFrom, hold           rollnet.Frame
	chainedN                  uint64        // states sent coded against the previous one (tests)
	fullAt                    rollnet.Frame // frame of the newest full state sent (NoFrame none)
	fullGap                   rollnet.Frame // frames before another full state may go, unacknowledged
	advAt                     rollnet.Frame // frame of the newest state that carried the advice
	advDepth                  int32         // the advice it carried
	advRate                   int32
	budget                    int64 // bytes it may be sent now (ClientBudget's bucket)
	budgetAt                  int64 // when the bucket was last filled
	depth                     float64
	skew                      float64 // the advice that cancels the client clock's own rate, estimated, in thousandths
	asked                     float64 // the advice, smoothed as the margins' mean is
	skewHold                  int     // margins before the skew estimate takes the mean's drift again
	rate                      int32
	margin                    margins // the input margins the advice holds on time
	out                       outbox
	seen                      seen // the sequence numbers of the inputs and Nacks taken
	stats                     HostClientStats

	// Absence (absence.go): awaited since awaitT; the furthest lease
	// sent on this connection; how far ahead of the states it holds the
	// client runs (a decaying peak); when the held frame's state was
	// last sent it.
	awaited   bool
	awaitT    int64
	leaseSent rollnet.Frame
	leaseAt   rollnet.Frame // the state that carried it
	leadPeak  float64
	heldAt    int64
}

func newHostClient[I comparable](slots, bodyCap int) *hostClient[I] {
	return &hostClient[I]{
		inputs: make([]I, inputRing*slots),
		tags:   make([]rollnet.Frame, inputRing),
		sent:   make([]bool, inputRing),
		late:   make([]I, lateCap*slots),
		lateAt: make([]rollnet.Frame, lateCap),
		last:   make([]I, slots),
		out:    newOutbox(bodyCap),
		sights: make([]claim, inputRing), lateSight: make([]claim, lateCap),
		sightLast: noClaim,
	}
}

// reset readies the record for a new client (or a resumed one: keep is
// true, and the inputs and slots stay) on link l, anchored at seq.
func (c *hostClient[I]) reset(peer transport.Peer, l *link.Link, seq uint16, keep bool) {
	c.peer, c.l, c.state, c.pkts = peer, l, clientConnected, 0
	c.seen.reset(seq)
	c.ack, c.sentUpTo, c.fullAt, c.fullGap, c.advAt = rollnet.NoFrame, rollnet.NoFrame, rollnet.NoFrame, 1, rollnet.NoFrame
	c.leaseSent, c.leaseAt, c.heldAt = rollnet.NoFrame, rollnet.NoFrame, 0
	c.ackHigh, c.ackAt, c.chained, c.hold = rollnet.NoFrame, rollnet.NoFrame, false, chainHoldMin
	c.welcomes, c.reject = 0, false
	c.out.next++ // bodies of the old connection are never repaired
	for i := range c.out.slots {
		c.out.slots[i].active = false
	}
	c.backlogN, c.resuming = 0, false
	c.margin.restart() // the old connection's arrivals say nothing of the new one's
	c.sightLast = noClaim
	if keep {
		// Late inputs of the old connection still waiting arrived before
		// the cut: the backlog the new one brings supersedes them.
		c.stats.LateSuperseded += uint64(c.lateN)
		c.lateHd, c.lateN = 0, 0
		return
	}
	c.played, c.leadPeak = false, 0
	c.stats = HostClientStats{}
	c.heard = rollnet.NoFrame
	c.lateHd, c.lateN = 0, 0
	c.depth, c.skew, c.asked, c.rate, c.skewHold = 0, 0, 0, 0, 0
	c.margin.seen = false
	for i := range c.tags {
		c.tags[i] = rollnet.NoFrame
	}
	clear(c.last)
}

// heardAck notes acknowledgement a, heard at frame f, for the chain
// (Host.base): a rise is timed; one of more than a state (interval
// frames), or one that goes back, says a state or an input was lost or
// reordered (or the client's tick slipped against the states' arrival),
// and the clean span starts again.
func (c *hostClient[I]) heardAck(a, f, interval rollnet.Frame) {
	switch d := a - c.ackHigh; {
	case a < 0:
	case c.ackHigh == rollnet.NoFrame:
		c.ackHigh, c.ackAt, c.cleanFrom = a, f, f
	case d > 0:
		if d > interval {
			c.cleanFrom = f
		}
		c.ackHigh, c.ackAt = a, f
	case d < 0:
		c.cleanFrom = f
	}
}

// fill fills the client's byte budget for the time since the last fill:
// rate bytes a second, at most a second's worth.
func (c *hostClient[I]) fill(now, rate int64) {
	if d := now - c.budgetAt; d > 0 {
		c.budget = min(c.budget+rate*d/1e9, rate)
		c.budgetAt = now
	}
}

// has reports whether the client's inputs for frame f are held.
func (c *hostClient[I]) has(f rollnet.Frame) bool { return f >= 0 && c.tags[int(f)%inputRing] == f }

func (c *hostClient[I]) at(f rollnet.Frame, slots int) []I {
	i := int(f) % inputRing * slots
	return c.inputs[i : i+slots]
}

// pushLate queues frame f's inputs; a full queue drops the oldest.
func (c *hostClient[I]) pushLate(arrived rollnet.Frame, in []I, sight claim, slots int) {
	if c.lateN == lateCap {
		c.lateHd = (c.lateHd + 1) % lateCap
		c.lateN--
		c.backlogN = max(c.backlogN-1, 0)
		c.stats.LateDropped++
	}
	k := (c.lateHd + c.lateN) % lateCap
	copy(c.late[k*slots:(k+1)*slots], in)
	c.lateAt[k] = arrived
	c.lateSight[k] = sight
	c.lateN++
}

// popLate returns the oldest late frame's inputs, or nil; its sight is
// popped.
func (c *hostClient[I]) popLate(slots int) []I {
	if c.lateN == 0 {
		return nil
	}
	k := c.lateHd
	c.popped = c.lateSight[k]
	c.lateHd = (c.lateHd + 1) % lateCap
	c.lateN--
	c.backlogN = max(c.backlogN-1, 0)
	return c.late[k*slots : (k+1)*slots]
}

// supersede drops the late inputs that arrived before frame f (not a
// resume's backlog): the client's own inputs are on time again, and
// applying old ones now would replay stale presses.
func (c *hostClient[I]) supersede(f rollnet.Frame) {
	for c.lateN > c.backlogN && c.lateAt[c.lateHd] < f {
		c.lateHd = (c.lateHd + 1) % lateCap
		c.lateN--
		c.stats.LateSuperseded++
	}
}

// advise samples the client's input margin at host frame f (about to be
// simulated) and updates its rate advice. The margin is how many of the
// client's input frames from f on the host has heard of when it needs f
// (the newest frame of its messages on this connection, its present: a
// resume's backlog, sent oldest first, does not make it look late), 1
// just on time, 0 or less: f goes without it; one sample per host
// frame, so what decides is what the simulation met: the client's
// stalls (its inputs stop while the host goes on), the host's own
// (it catches up on frames back to back), the network's jitter, all in
// one number, and a burst of packets after a stall counts once, not once
// per packet.
//
// The advice holds the mean margin (smoothed, it follows the lead at
// once) at the target, or deeper by the tail's shortfall: how far the
// low quantile of the last 4 s of margins (about the 0.5th percentile) fell
// below the mean at the time, so that the latest-arriving inputs are on
// time (a margin of target-1 or more). The tail is kept as deviations
// from the mean, a property of the jitter and the stalls, not of the
// lead: a quantile of the margins themselves remembers the old lead for
// the window's length, and holding it drove the lead up and down in a
// cycle of twice the window. On a quiet machine the tail is within a
// frame of the mean and the target decides, as before.
//
// The advice is a proportional term, 1.5% per frame of shortfall past
// half a frame (within it, none: a rate off 1 makes the client's paced
// playout jump or stall a frame per frame of drift, so it must not hunt),
// plus the client clock's own rate, estimated as how fast the mean drifts
// beyond what the advice asked, over 4 s. An integral of the error held
// that rate before; it wound up on every long approach (a client anchored
// frames ahead) into an overshoot: on a quiet machine the overshoot made
// inputs late until the client re-anchored far ahead and approached again,
// a cycle of a few seconds, the advice at -5% to -10% at the end of the
// match and 50 to 75 playout jumps in 1200 frames. The drift during an
// approach is what the advice asked, so the estimate stays at the clock's.
func (c *hostClient[I]) advise(f rollnet.Frame, target, maxRate int) {
	if c.state != clientConnected || !c.margin.present {
		return
	}
	// A client silent longer than the lead would ever cover is cut off,
	// not late: its margins say nothing of the lead it needs (taken, a
	// second's outage left the advice at +10% for seconds after it).
	// Silence is the host frames since its last message, not its margin:
	// a client that talks every frame but far behind (one that anchored
	// late) was taken for silent, never advised, and stayed 7 to 22
	// frames late for the rest of the match, its inputs waiting up to
	// two seconds in the late queue.
	// While the lead moves fast the deviations from the mean are its lag,
	// not the jitter's: the tail keeps what it had.
	if f-c.margin.heardAt > rollnet.Frame(target+maxTail) {
		return
	}
	d := int(c.margin.newest - f + 1)
	was := c.margin.mean
	first := !c.margin.seen
	c.margin.add(d, max(c.rate, -c.rate) <= steadyRate)
	// The clock's own rate (negated: what cancels it), from the mean's
	// drift in thousandths of a frame per frame, less the advice asked
	// (smoothed as the mean is, so lagged alike).
	// A margin far from the mean (a stall's dip, a re-anchor's step) moves
	// the mean for a while by what is not a clock's rate: the estimate
	// waits until the mean has taken it (a re-anchor 5 frames ahead would
	// read as -2% for the next seconds).
	lim := float64(maxRate)
	c.asked += (float64(c.rate) - c.asked) / 16
	if math.Abs(float64(d)-was) > 2 {
		c.skewHold = 32
	}
	switch {
	case first:
	case c.skewHold > 0:
		c.skewHold--
	default:
		drift := 1000 * (c.margin.mean - was)
		c.skew = max(-lim, min(lim, c.skew+(c.asked-drift-c.skew)/240))
	}
	want := float64(target)
	if tail, ok := c.margin.tail(); ok {
		want = max(want, float64(target-1)+min(tail, maxTail))
	}
	e := want - c.margin.mean // frames short
	const (
		kp   = 15.0 // thousandths per frame of error
		band = 0.5  // frames of error the proportional term ignores
	)
	switch {
	case e > band:
		e -= band
	case e < -band:
		e += band
	default:
		e = 0
	}
	c.rate = int32(max(-lim, min(lim, kp*e+c.skew)))
}

// margins keeps a client's input margins (see advise): their smoothed
// mean, and the last marginWindow deviations from it, in quarter frames,
// in a ring and a histogram of the ring, so the low quantile is a walk of
// the bins, not a sort.
type margins struct {
	newest  rollnet.Frame // the newest input frame of the connection's messages
	heardAt rollnet.Frame // the host's frame when the last of them arrived
	present bool          // newest is set
	ring    [marginWindow]int8
	hist    [marginBins]uint16
	next    int
	n       int
	mean    float64 // smoothed over about 16 frames
	seen    bool
}

// steadyRate is the largest advice, in thousandths, under which the
// margins' deviations are the tail's: 2% moves the lead 1.2 frames a
// second, a lag of the mean of a fraction of a frame.
const steadyRate = 20

// maxTail bounds the tail's shortfall the advice deepens the lead for, in
// frames (100 ms at 60 Hz): a stall longer than that (seen now and then
// beside a CPU hog: 150 to 300 ms) makes its inputs late, rolled back or
// applied late, rather than the lead of the next 4 s that long.
const maxTail = 6

// marginWindow is 4 s of a 60 Hz host's frames; marginRank the rank of
// the deviation tail holds, 1-based: the 2nd lowest of 240, about the
// 0.5th percentile (none is used before marginMin samples). The 3rd
// lowest left 8 inputs late in 27 s of TestTimeDilationJitterAndHog where
// the 2nd and the lowest left 2, for a lead 0.4 frames deeper; the 2nd
// is not moved by one sample alone.
const (
	marginWindow = 240
	marginRank   = 2
	marginMin    = 60
	marginBins   = 256 // deviations of -32 to 31.75 frames, clamped
)

// restart forgets the connection's newest input and the tail: a new
// connection (a resume's too) starts them again; the mean goes on.
func (m *margins) restart() {
	m.present, m.n, m.next = false, 0, 0
	m.hist = [marginBins]uint16{}
}

// heard notes a message whose newest input frame is newest, arrived at
// host frame at.
func (m *margins) heard(newest, at rollnet.Frame) {
	m.heardAt = at
	if !m.present || newest > m.newest {
		m.newest, m.present = newest, true
	}
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

// tail is how many frames the marginRank-th lowest deviation held lies
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

func (c *hostClient[I]) clientStats(slots int) HostClientStats {
	s := c.stats
	s.Peer, s.First, s.Slots = c.peer, c.first, slots
	s.Connected, s.Away = c.state == clientConnected, c.state == clientAway
	s.Depth, s.Rate = c.depth, float64(c.rate)/1000
	if c.l != nil {
		s.Link = c.l.Stats()
		s.Link.Peer = c.peer
	}
	return s
}
