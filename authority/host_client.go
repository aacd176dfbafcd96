package authority

import (
	"math/bits"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/pacing"
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
	// cleanFrom the frame since which the acknowledgements rose without a
	// jump past their spread and no packet of the client's was lost;
	// chained says states go coded against the previous
	// one sent, since chainFrom, once the acknowledgements were clean for
	// hold frames.
	ackHigh, ackAt, cleanFrom rollnet.Frame
	spread, spreadAt          rollnet.Frame // the longest recent stall past a state interval, and when it decays
	wide                      rollnet.Frame // the last stall past the spread
	upHigh                    uint16        // the newest sequence number of the client's packets
	upSeen                    uint64        // bit i: the client's packet upHigh-i came (or came before upHigh was known)
	upLost                    uint64        // the client's packets lost on the way (tests)
	upKnown                   bool          // upHigh is a packet's
	lossAt, lossGap           rollnet.Frame // the frame of the last loss of the client's packets, and the frames since the one before
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
	adv                       pacing.Advice // the rate advice, from how early its inputs arrive
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
	c.spread, c.wide, c.upSeen, c.upKnown = 0, 0, ^uint64(0), false
	c.lossAt, c.lossGap = -chainHoldMax, chainHoldMax
	c.welcomes, c.reject = 0, false
	c.out.next++ // bodies of the old connection are never repaired
	for i := range c.out.slots {
		c.out.slots[i].active = false
	}
	c.backlogN, c.resuming = 0, false
	c.adv.Restart() // the old connection's arrivals say nothing of the new one's
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
	c.depth = 0
	c.adv.Reset()
	for i := range c.tags {
		c.tags[i] = rollnet.NoFrame
	}
	clear(c.last)
}

// heardAck notes acknowledgement a, heard at frame f, for the chain
// (Host.base): a rise is timed, and the stall before it (past a state
// interval) widens the spread when it is the second such of late (the
// spread shrinks a frame a second; a stall past maxSpread intervals is a
// loss, not jitter); a rise of more than a state and the spread says a
// state was lost (or the client's tick slipped against the states'
// arrival), and the clean span starts again. One that goes back is a
// client's packet overtaken by the one before: nothing to go by.
func (c *hostClient[I]) heardAck(a, f, interval rollnet.Frame) {
	switch d := a - c.ackHigh; {
	case a < 0:
	case c.ackHigh == rollnet.NoFrame:
		c.ackHigh, c.ackAt, c.cleanFrom = a, f, f
	case d > 0:
		if stall := f - c.ackAt - interval; stall > c.spread && stall <= maxSpread*interval {
			// Wider once a second such stall came, to the shorter of
			// the two: a lone long one is a loss, not the link's jitter.
			c.spread, c.wide, c.spreadAt = min(stall, c.wide), stall, f
		} else if f-c.spreadAt >= spreadDecay {
			c.spread, c.spreadAt = max(c.spread-1, 0), f
			c.wide = c.spread
		}
		// A jump within the spread is jitter (states bunched on the
		// way) once the link lost none of the client's packets for a
		// while; on a link that loses them it may be a loss.
		tol := c.spread
		if f-c.lossAt < trustAfter {
			tol = 0
		}
		if d > interval+tol {
			c.cleanFrom = f
		}
		c.ackHigh, c.ackAt = a, f
	}
}

// heardSeq notes the client's packet of sequence number seq, heard at
// frame f, for the chain (Host.base): one not heard by the time 32 newer
// ones were is lost (the reordering a link may do is shorter), and a
// link that loses the client's packets likely loses the host's: the clean
// span starts again.
func (c *hostClient[I]) heardSeq(seq uint16, f rollnet.Frame) {
	if !c.upKnown {
		c.upHigh, c.upKnown, c.lossAt = seq, true, f // the connection's start counts as a loss
		return
	}
	switch d := int(int16(seq - c.upHigh)); {
	case d > 0:
		// The bits moving from 31 and below to 32 and past leave the
		// reordering window: a zero among them is a packet lost.
		lost := 0
		if d > 32 {
			lost = d - 32 + bits.OnesCount32(^uint32(c.upSeen))
		} else {
			lost = bits.OnesCount64(^c.upSeen >> (32 - d) & (1<<d - 1))
		}
		if d >= 64 {
			c.upSeen = 1
		} else {
			c.upSeen = c.upSeen<<d | 1
		}
		c.upHigh = seq
		if lost > 0 {
			c.upLost += uint64(lost)
			c.lossGap, c.lossAt, c.cleanFrom = f-c.lossAt, f, f
		}
	case d < 0 && d > -32:
		c.upSeen |= 1 << -d
	}
}

const (
	trustAfter  = 4 * chainHoldMin // frames without a loss of the client's packets before jumps are read as jitter
	maxSpread   = 8                // state intervals: a longer stall is a loss, not jitter
	spreadDecay = 60               // frames: the spread shrinks a frame each
)

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
// simulated) and updates its rate advice (pacing.Advice, which the
// entity host shares): the margin is how many of the client's input
// frames from f on the host has heard of when it needs f.
func (c *hostClient[I]) advise(f rollnet.Frame, target, maxRate int) {
	if c.state == clientConnected {
		c.adv.Advise(int32(f), int32(f), target, maxRate)
	}
}

func (c *hostClient[I]) clientStats(slots int) HostClientStats {
	s := c.stats
	s.Peer, s.First, s.Slots = c.peer, c.first, slots
	s.Connected, s.Away = c.state == clientConnected, c.state == clientAway
	s.Depth, s.Rate = c.depth, float64(c.adv.Rate())/1000
	if c.l != nil {
		s.Link = c.l.Stats()
		s.Link.Peer = c.peer
	}
	return s
}
