package authority

import (
	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/internal/link"
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
	token     [codec.TokenLen]byte
	nonce     uint64
	kind      codec.WelcomeKind // the answer decided for this connection
	welcomes  int               // copies still to send
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

	ack      rollnet.Frame // newest state frame the client acknowledged
	sentUpTo rollnet.Frame // newest state frame sent it
	fullAt   rollnet.Frame // frame of the newest full state sent (NoFrame none)
	fullGap  rollnet.Frame // frames before another full state may go, unacknowledged
	advAt    rollnet.Frame // frame of the newest state that carried the advice
	advDepth int32         // the advice it carried
	advRate  int32
	budget   int64 // bytes it may be sent now (ClientBudget's bucket)
	budgetAt int64 // when the bucket was last filled
	depth    float64
	integ    float64
	rate     int32
	early    earliness // the depth samples the advice holds on time
	out      outbox
	stats    HostClientStats
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
	}
}

// reset readies the record for a new client (or a resumed one: keep is
// true, and the inputs and slots stay).
func (c *hostClient[I]) reset(peer transport.Peer, l *link.Link, keep bool) {
	c.peer, c.l, c.state, c.pkts = peer, l, clientConnected, 0
	c.ack, c.sentUpTo, c.fullAt, c.fullGap, c.advAt = rollnet.NoFrame, rollnet.NoFrame, rollnet.NoFrame, 1, rollnet.NoFrame
	c.welcomes, c.reject = 0, false
	c.out.next++ // bodies of the old connection are never repaired
	for i := range c.out.slots {
		c.out.slots[i].active = false
	}
	c.backlogN, c.resuming = 0, false
	c.early = earliness{} // the old connection's arrivals say nothing of the new one's
	if keep {
		// Late inputs of the old connection still waiting arrived before
		// the cut: the backlog the new one brings supersedes them.
		c.stats.LateSuperseded += uint64(c.lateN)
		c.lateHd, c.lateN = 0, 0
		return
	}
	c.played = false
	c.stats = HostClientStats{}
	c.heard = rollnet.NoFrame
	c.lateHd, c.lateN = 0, 0
	c.depth, c.integ, c.rate = 0, 0, 0
	for i := range c.tags {
		c.tags[i] = rollnet.NoFrame
	}
	clear(c.last)
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
func (c *hostClient[I]) pushLate(arrived rollnet.Frame, in []I, slots int) {
	if c.lateN == lateCap {
		c.lateHd = (c.lateHd + 1) % lateCap
		c.lateN--
		c.backlogN = max(c.backlogN-1, 0)
		c.stats.LateDropped++
	}
	k := (c.lateHd + c.lateN) % lateCap
	copy(c.late[k*slots:(k+1)*slots], in)
	c.lateAt[k] = arrived
	c.lateN++
}

// popLate returns the oldest late frame's inputs, or nil.
func (c *hostClient[I]) popLate(slots int) []I {
	if c.lateN == 0 {
		return nil
	}
	k := c.lateHd
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

// advise updates the client's rate advice from how early its inputs
// arrive: a proportional term, and an integral one that holds a client
// whose clock runs fast or slow at the target. Two things are held: the
// mean depth at the target, and the earliness of the latest-arriving few
// percent of the recent inputs (a low quantile of the samples) at least a
// frame less; the error is the larger shortfall. On a quiet link the mean
// decides, as before. Under jitter, or a client whose ticks come in bursts
// (a process beside a CPU hog), a mean on target leaves the tail late, and
// bursts of early inputs pull the mean up and would drive the advice the
// wrong way (slower, so later still): the tail then decides, and the
// buffer gets deeper instead.
func (c *hostClient[I]) advise(target, maxRate int) {
	e := float64(target) - c.depth // frames short of the target
	if q, ok := c.early.low(); ok {
		e = max(e, float64(target-1)-q)
	}
	const kp, ki = 15.0, 0.15 // thousandths per frame of error; per frame of error per tick
	c.integ += ki * e
	lim := float64(maxRate)
	c.integ = max(-lim, min(lim, c.integ))
	r := kp*e + c.integ
	c.rate = int32(max(-lim, min(lim, r)))
}

// earliness keeps the last depth samples of a client's inputs (how many
// frames before the host needs them they arrive), for the advice.
type earliness struct {
	s [earlySamples]float32
	n int
}

// earlySamples is about a second of a 60 Hz client's messages;
// earlyQuantile the index, in sorted order, of the sample held: the third
// smallest of 64, about the 3rd percentile.
const (
	earlySamples  = 64
	earlyQuantile = 2
	earlyMin      = 16 // samples before the quantile is used
)

func (e *earliness) add(d float64) {
	e.s[e.n%earlySamples] = float32(d)
	e.n++
}

// low is the low quantile of the samples held (earlyQuantile of
// earlySamples); ok once there are earlyMin of them. It sorts a copy: no allocation.
func (e *earliness) low() (float64, bool) {
	n := min(e.n, earlySamples)
	if n < earlyMin {
		return 0, false
	}
	var v [earlySamples]float32
	copy(v[:n], e.s[:n])
	w := v[:n]
	for i := 1; i < len(w); i++ {
		for j := i; j > 0 && w[j] < w[j-1]; j-- {
			w[j], w[j-1] = w[j-1], w[j]
		}
	}
	return float64(w[n*earlyQuantile/earlySamples]), true
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
