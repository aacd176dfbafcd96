package link

import (
	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
)

// Checks holds this end's own checksums of confirmed frames, one every
// Interval frames.
type Checks struct {
	Interval int           // frames apart; <= 0 never
	Next     rollnet.Frame // the next frame due a checksum
	ring     [checkRing]checkEntry
	newest   checkEntry
}

// NewChecks returns the checksums of an owner checksumming every interval
// frames.
func NewChecks(interval int) Checks {
	c := Checks{Interval: interval, Next: rollnet.Frame(interval), newest: checkEntry{frame: rollnet.NoFrame}}
	for i := range c.ring {
		c.ring[i].frame = rollnet.NoFrame
	}
	return c
}

// Newest returns the newest frame checksummed, or NoFrame.
func (c *Checks) Newest() rollnet.Frame { return c.newest.frame }

// Find returns our checksum of f, while the ring holds it.
func (c *Checks) Find(f rollnet.Frame) (uint32, bool) { return c.find(f) }

func (c *Checks) find(f rollnet.Frame) (uint32, bool) {
	e := c.ring[int(f/rollnet.Frame(max(c.Interval, 1)))%checkRing]
	return e.sum, e.frame == f
}

func (c *Checks) store(f rollnet.Frame, sum uint32) {
	c.ring[int(f/rollnet.Frame(max(c.Interval, 1)))%checkRing] = checkEntry{frame: f, sum: sum}
	c.newest = checkEntry{frame: f, sum: sum}
}

// SendChecksum sends l our newest checksum.
func (e *Endpoint) SendChecksum(l *Link, own *Checks) {
	m := wire.Checksum{Seq: l.seq, Frame: int32(own.newest.frame), Checksum: own.newest.sum}
	e.Send(l, m.Append(e.out[:0]))
}

// RepeatChecksum sends l our newest checksum again while it is owed
// repeats (each new checksum goes out three times: once from
// LocalChecksum, twice from here).
func (e *Endpoint) RepeatChecksum(l *Link, own *Checks) {
	if l.checkAgain > 0 && own.newest.frame != rollnet.NoFrame {
		l.checkAgain--
		e.SendChecksum(l, own)
	}
}

// RemoteChecksum records l's Checksum message b and compares it with ours.
func (e *Endpoint) RemoteChecksum(l *Link, own *Checks, b []byte) {
	m, _, err := wire.ParseChecksum(b)
	if err != nil || m.Frame < 0 || own.Interval <= 0 || int(m.Frame)%own.Interval != 0 {
		l.malformed++
		return
	}
	if e.Accept(l, m.Seq) {
		e.ReceivedChecksum(l, own, rollnet.Frame(m.Frame), m.Checksum, m.Seq)
	}
}

// RecordChecksum records our checksum sum of the state after f (a
// confirmed frame on the grid: a multiple of own.Interval) and compares it
// with what each link reported of f. Unlike LocalChecksum it sends
// nothing: the checksum rides on the owner's messages (CarriedChecksum,
// RepeatedChecksum).
func (e *Endpoint) RecordChecksum(own *Checks, f rollnet.Frame, sum uint32) {
	own.store(f, sum)
	slot := int(f/rollnet.Frame(own.Interval)) % checkRing
	for _, l := range e.links {
		if l.state != Running {
			continue
		}
		if r := &l.checks[slot]; r.frame == f && !r.done {
			r.done = true
			e.compare(l, r, f, sum, r.sum)
		}
		l.carryAgain = carryRepeats
	}
}

// carryRepeats is how many messages carry a new checksum when nothing
// acknowledges it (RepeatedChecksum).
const carryRepeats = 3

// CarriedChecksum returns the checksum the next message to l that carries
// frames of ours should carry: our newest, until l acknowledged (Acked) the
// first frame whose first sending carried it (every message holding that
// frame carries it, so l has received the checksum), and on at most three
// messages (on a long round trip the ack comes late: three carriers lose
// the checksum only when all three are lost, and the next checksum,
// Interval frames later, still finds a desync). ok is false when there is
// none to carry. After sending the message, call CarriedChecksumSent.
func (e *Endpoint) CarriedChecksum(l *Link, own *Checks) (f rollnet.Frame, sum uint32, ok bool) {
	n := own.newest
	if n.frame == rollnet.NoFrame {
		return rollnet.NoFrame, 0, false
	}
	if l.carried != n.frame {
		l.carried, l.carriedEnd, l.carriedN = n.frame, rollnet.NoFrame, 0
	}
	if l.carriedN >= carryRepeats || (l.carriedEnd != rollnet.NoFrame && l.Acked >= l.carriedEnd) {
		return rollnet.NoFrame, 0, false // it has it
	}
	return n.frame, n.sum, true
}

// CarriedChecksumSent notes that a message carrying CarriedChecksum's
// answer went to l; fresh is the newest frame it carried if that frame
// went to l for the first time (else NoFrame: an older message may hold
// it without the checksum).
func (e *Endpoint) CarriedChecksumSent(l *Link, fresh rollnet.Frame) {
	end := fresh
	l.carriedN++
	if l.carriedEnd == rollnet.NoFrame && end != rollnet.NoFrame {
		l.carriedEnd = end
	}
}

// RepeatedChecksum returns the checksum the next message to l should carry
// when l acknowledges nothing of ours (a spectator's acks to its host): our
// newest, on the first three messages after it was recorded.
func (e *Endpoint) RepeatedChecksum(l *Link, own *Checks) (f rollnet.Frame, sum uint32, ok bool) {
	if own.newest.frame == rollnet.NoFrame || l.carryAgain <= 0 {
		return rollnet.NoFrame, 0, false
	}
	l.carryAgain--
	return own.newest.frame, own.newest.sum, true
}

// ReceivedChecksum records the checksum sum of frame f that rode on a
// message from l the owner already validated and Accepted, whose sequence
// number was seq, and compares it with ours. A frame off our grid is
// counted malformed. A report of f waiting for ours is replaced only by
// one from a newer packet: a late or replayed copy of a real packet, with
// another checksum added, cannot overwrite the report it copies.
func (e *Endpoint) ReceivedChecksum(l *Link, own *Checks, f rollnet.Frame, sum uint32, seq uint16) {
	if f < 0 || own.Interval <= 0 || int(f)%own.Interval != 0 {
		l.malformed++
		return
	}
	r := &l.checks[int(f/rollnet.Frame(own.Interval))%checkRing]
	if r.frame == f && (r.done || int16(seq-r.seq) <= 0) {
		return // a repeat of a report already compared, or an older report
	}
	*r = checkEntry{frame: f, sum: sum, seq: seq}
	if mine, ok := own.find(f); ok {
		r.done = true
		e.compare(l, r, f, mine, sum)
	}
}

// compare counts a comparison with l at f (once per frame: the callers
// mark the report done) and reports a desync with l at f once.
func (e *Endpoint) compare(l *Link, r *checkEntry, f rollnet.Frame, local, remote uint32) {
	l.compared++
	if local == remote {
		l.agreed++
		l.agreedAt = max(l.agreedAt, f)
		r.same = true
		if l.desyncAt != rollnet.NoFrame && f > l.desyncAt {
			// Healed (a desync repaired): a later difference is a new
			// desync, reported again; older reports arriving late are not.
			l.desyncAt, l.quietTo = rollnet.NoFrame, f
		}
		return
	}
	if l.desyncAt != rollnet.NoFrame && f >= l.desyncAt || f <= l.quietTo {
		return // reported already, at this frame or an earlier one; or before a repair
	}
	// The first difference found, or one earlier than the one reported
	// (reports can arrive out of order): the event names the earliest
	// frame known to differ, and the newest known to agree before it.
	l.desyncAt = f
	agreed := rollnet.NoFrame
	if l.agreedAt < f {
		agreed = l.agreedAt
	} else {
		for _, c := range l.checks {
			if c.same && c.frame < f {
				agreed = max(agreed, c.frame)
			}
		}
	}
	e.desyncs++
	e.events.Push(rollnet.Event{Kind: rollnet.EventDesyncDetected, Peer: l.Peer, Frame: f, Agreed: agreed, Local: local, Remote: remote})
}

// Desyncs counts the desyncs reported (EventDesyncDetected) on every link:
// an owner that acts on them looks at its links when it moves.
func (e *Endpoint) Desyncs() uint64 { return e.desyncs }

// DesyncAt is the frame of the desync reported with l and not healed
// since (a later frame compared equal), or NoFrame.
func (l *Link) DesyncAt() rollnet.Frame { return l.desyncAt }

// AgreedAt is the newest frame whose checksums compared equal with l, or
// NoFrame.
func (l *Link) AgreedAt() rollnet.Frame { return l.agreedAt }

// Reported returns l's checksum of f, as it reported it, while held.
func (l *Link) Reported(f rollnet.Frame, interval int) (uint32, bool) {
	if f < 0 || interval <= 0 {
		return 0, false
	}
	r := l.checks[int(f/rollnet.Frame(interval))%checkRing]
	return r.sum, r.frame == f
}

// ForgetDesync ends the desync reported with l (this end's state was
// repaired): a difference at a frame after quiet is reported again, none
// at or before it (our checksums up to quiet were of the state repaired).
func (l *Link) ForgetDesync(quiet rollnet.Frame) {
	l.desyncAt, l.quietTo = rollnet.NoFrame, max(l.quietTo, quiet)
}

// Fail ends the match with l for reason, as a failed handshake does: the
// endpoint fails (Err) unless l is Optional.
func (e *Endpoint) Fail(l *Link, reason string) { e.fail(l, reason) }

// LocalChecksum records our checksum at f, compares it with what each
// link reported (RecordChecksum), and sends it to every running link in a
// Checksum message, repeated twice by RepeatChecksum.
func (e *Endpoint) LocalChecksum(own *Checks, f rollnet.Frame, sum uint32) {
	e.RecordChecksum(own, f, sum)
	for _, l := range e.links {
		if l.state == Running {
			e.SendChecksum(l, own)
			l.checkAgain = 2
		}
	}
}
