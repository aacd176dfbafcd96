package authority

// Absence in the authoritative mode (HostConfig.Absence): the host
// decides, and its clients follow what it says.
//
// A lease bounds every client's prediction: under AbsenceFreeze and
// AbsenceForfeit each state's advice carries, now and then, the frame a
// client may simulate up to (exclusive), and a client simulates no frame
// at or past the furthest lease it holds (ClientStats.LeaseWaits counts
// the ticks one ran out: the host's states were late). The host keeps
// the furthest lease it ever sent any client (until). A lease runs
// leaseLen frames past the state it rides on: twice the furthest any
// client runs ahead of the states it holds (measured from its inputs'
// acknowledgements, and at least its round trip), plus 8, between 16 and
// 64 frames, so a client meets its lease only when the host's states are
// later than that. The lease
// rides every leaseEvery-th state, about 3 bytes (the advice, with the
// rate and depth), some 45 B/s at 60 Hz.
//
// A player is away when its client's connection is interrupted (silent
// for Net.DisconnectNotify, 750 ms by default), or gone (away, its slots
// kept for Grace). The first away player starts a hold: the stop frame
// is the furthest lease sent (until), which no client can have
// simulated. The host plays on to it (the player's input predicted, as
// before) and simulates no frame from it while any player is awaited;
// every tick it sends each client a WelcomeHold (the stop, the players
// awaited, the hold's age). Clients stop at the stop frame. The hold ends
// when every awaited player is back (its connection heard again, or a
// rejoin, with its token, accepted) or dropped (its grace passed: its
// slots are freed): the host then sends a WelcomeHold whose lease runs
// past the stop (every client simulates on at once, the returning one
// from the state the host sends its new connection), and simulates the
// stop frame when every client's input for it is there (or after twice
// the longest round trip, at least 250 ms): a round trip after the
// return, all together, with nobody's inputs late. A resume's backlog
// (the inputs a client made while cut off) is superseded: those frames
// were played without it.
//
// Under AbsenceForfeit the host stops at the stop frame for good
// (HostStats.Forfeited, EventPlayerForfeited): every client holds the
// host's state at the frame before it, and the game decides.

import (
	"math"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
)

// Lease bounds, in frames.
const (
	minLease = 16
	maxLease = 64
)

// leaseEvery is how many frames apart the states carrying a lease are.
const leaseEvery = 4

// resendHeld is how often a host holding the match sends the state before
// the stop to a client that has not acknowledged it.
const resendHeld = 50 * time.Millisecond

// resumeWaitLeast is the least a host resuming waits at the stop frame for
// its clients' inputs.
const resumeWaitLeast = 250 * time.Millisecond

// absence is a host's hold state (HostConfig.Absence).
type absence struct {
	policy   rollnet.Absence
	playing  int           // PlayingSlots: a client from this slot on is a spectator, never awaited
	until    rollnet.Frame // the furthest lease sent any client
	lease    rollnet.Frame // this tick's lease length
	stop     rollnet.Frame // the frame the match stops at; NoFrame: no hold
	since    int64         // when the hold began
	waiting  int           // clients awaited
	resumeAt int64         // when the last awaited came back or was dropped
	forfeit  bool
	held     bool // the last tick simulated nothing for the hold
	msg      wire.Welcome
}

// holds runs the absence policy for frame f, about to be simulated: it
// starts and ends waits, and reports whether f is held (not simulated).
func (h *Host[S, I]) holds(f rollnet.Frame) bool {
	a := &h.abs
	a.lease = h.leaseLen()
	for _, c := range h.clients {
		away := c.played && c.first < a.playing && (c.state == clientAway || (c.state == clientConnected && c.l.Interrupted()))
		switch {
		case away && !c.awaited:
			if a.waiting == 0 && !a.forfeit {
				a.stop, a.since, a.msg.N = max(a.until, f), h.t, 0
			}
			c.awaited, c.awaitT = true, h.t
			a.waiting++
			kind := rollnet.EventPlayerAwaited
			if a.policy == rollnet.AbsenceForfeit {
				kind, a.forfeit = rollnet.EventPlayerForfeited, true
			}
			h.name(c, wire.HoldAwaited)
			h.push(rollnet.Event{Kind: kind, Peer: c.peer, Player: c.first, Frame: a.stop})
		case c.awaited && !away:
			c.awaited = false
			a.waiting--
			kind, outcome := rollnet.EventPlayerRejoined, wire.HoldBack
			if c.state == clientFree {
				kind, outcome = rollnet.EventPlayerDropped, wire.HoldDropped
			}
			h.name(c, outcome)
			if !a.forfeit {
				h.push(rollnet.Event{Kind: kind, Peer: c.peer, Player: c.first, Frame: a.stop})
			}
			if a.waiting == 0 {
				a.resumeAt = h.t
			}
		}
	}
	held := false
	switch {
	case a.stop == rollnet.NoFrame:
	case a.waiting > 0 || a.forfeit:
		held = f >= a.stop
	case f < a.stop:
		// Back before the host reached the stop: the clients' leases
		// run past it again.
	case a.held && !h.inputsFor(f) && h.t-a.resumeAt < h.resumeWait():
		held = true // resuming: the clients' inputs for the stop are on their way
	default:
		a.stop = rollnet.NoFrame
	}
	if a.stop != rollnet.NoFrame {
		h.sendHolds(f, held)
	}
	a.held = held
	return held
}

// name puts c's player in the hold's message with its outcome (the first
// MaxHoldPlayers of a hold).
func (h *Host[S, I]) name(c *hostClient[I], o wire.HoldOutcome) {
	m := &h.abs.msg
	for k := range m.Players[:m.N] {
		if int(m.Players[k].Player) == c.first {
			m.Players[k].Outcome = o
			return
		}
	}
	if int(m.N) < len(m.Players) {
		m.Players[m.N] = wire.HoldPlayer{Player: uint8(c.first), Outcome: o}
		m.N++
	}
}

// push queues an event of the host's own for Events.
func (h *Host[S, I]) push(ev rollnet.Event) {
	if len(h.queue) == maxEvents {
		h.queue = h.queue[:copy(h.queue, h.queue[1:])]
	}
	h.queue = append(h.queue, ev)
}

// inputsFor reports whether every playing client's input for f is here.
func (h *Host[S, I]) inputsFor(f rollnet.Frame) bool {
	for _, c := range h.clients {
		if c.state == clientConnected && c.played && !c.has(f) {
			return false
		}
	}
	return true
}

// resumeWait is how long a host resuming waits at the stop for its
// clients' inputs: twice the longest round trip, at least
// resumeWaitLeast.
func (h *Host[S, I]) resumeWait() int64 {
	w := int64(resumeWaitLeast)
	for _, c := range h.clients {
		if c.state == clientConnected {
			w = max(w, 2*int64(c.l.RTT()))
		}
	}
	return w
}

// leaseLen is how far past a state its lease runs: twice the furthest
// any client runs ahead of the states it holds, plus 8 frames, between
// minLease and maxLease.
func (h *Host[S, I]) leaseLen() rollnet.Frame {
	period := int64(time.Second) / int64(h.s.net.FrameRate)
	lead := 0.0
	for _, c := range h.clients {
		if c.state == clientConnected {
			lead = max(lead, c.leadPeak, float64(int64(c.l.RTT())/period))
		}
	}
	return rollnet.Frame(min(maxLease, max(minLease, 2*int(math.Ceil(lead))+8)))
}

// leaseFor is the lease a state of frame f sent c carries (0: none due):
// f plus leaseLen, no further than the stop while a player is awaited,
// on a whole state and every leaseEvery frames (a renewal lost is
// followed by another; the lease, at least 8 frames more than twice the
// client's lead, covers two lost in a row).
func (h *Host[S, I]) leaseFor(c *hostClient[I], f rollnet.Frame, whole bool) int32 {
	a := &h.abs
	if a.policy == rollnet.AbsencePredict {
		return 0
	}
	if !whole && c.leaseAt != rollnet.NoFrame && f-c.leaseAt < leaseEvery {
		return 0
	}
	target := f + a.lease
	if a.stop != rollnet.NoFrame && (a.waiting > 0 || a.forfeit) {
		target = min(target, a.stop)
	}
	if target = max(target, c.leaseSent); target <= f {
		return 0
	}
	c.leaseSent, c.leaseAt = target, f
	a.until = max(a.until, target)
	return int32(target - f)
}

// sendHolds sends every connected client the hold's message: the stop,
// the lease (the stop while a player is awaited, past it once none is),
// the players; while f is held, it also sends the state before the stop
// to a client that has not acknowledged it (a client that rejoined).
func (h *Host[S, I]) sendHolds(f rollnet.Frame, held bool) {
	a := &h.abs
	m := &a.msg
	m.Kind, m.Forfeit, m.Stop, m.Until = wire.WelcomeHold, a.forfeit, int32(a.stop), int32(a.stop)
	if a.waiting == 0 && !a.forfeit {
		a.until = max(a.until, a.stop+a.lease)
		m.Until = int32(min(a.until, a.stop+wire.MaxLease))
	}
	m.Age = uint32(min((h.t-a.since)/int64(time.Millisecond), math.MaxUint32))
	// The held state goes a tick after the connection's answer (a copy
	// sent with it may overtake it, and be dropped), and again every
	// resendHeld until acknowledged: the frame does not move, so the
	// full states' pacing by frame would never send it again.
	resend := int64(resendHeld)
	for _, c := range h.clients {
		if c.state != clientConnected || (c.kind != wire.WelcomeSync && c.kind != wire.WelcomeResume) {
			continue
		}
		m.Seq, m.Nonce = c.l.Seq(), c.nonce
		h.out = m.Append(h.out[:0])
		h.send(c)
		if held && f > 0 && c.ack < f-1 && h.t > c.welcomeAt && (c.sentUpTo < f-1 || h.t-c.heldAt >= resend) {
			c.heldAt = h.t
			c.fullAt = rollnet.NoFrame          // (by time, not by frame)
			c.sentUpTo = min(c.sentUpTo, c.ack) // coded against what it acknowledged, never against itself
			h.sendState(c, f-1)
		}
	}
}

// leadSample takes how far ahead of the states it held a client ran when
// it sent inputs up to newest, acknowledging ack: the peak, decaying a
// frame a second at 60 packets a second.
func (c *hostClient[I]) leadSample(newest, ack rollnet.Frame) {
	if ack < 0 || newest < ack {
		return
	}
	c.leadPeak = max(float64(newest-ack), c.leadPeak-1.0/60)
}

// absenceStats fills st's absence fields.
func (h *Host[S, I]) absenceStats(st *HostStats) {
	a := &h.abs
	st.Awaiting, st.Awaited, st.HoldAt = a.waiting, -1, a.stop
	st.Forfeited = a.forfeit && h.core.Frame() >= a.stop // (there: until then it plays on to the stop)
	for _, c := range h.clients {
		if c.awaited {
			if st.Awaited < 0 {
				st.Awaited = c.first
			}
			st.HeldFor = max(st.HeldFor, time.Duration(h.t-c.awaitT))
		}
	}
}
