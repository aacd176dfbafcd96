package entity

// A link slower than a client's budget queues the host's updates
// somewhere on the way (a transport's bulk path holds up to 64 KiB: 4 s
// at the default budget), and a queued state grows stale while nothing
// on the wire is lost. From its acks the host keeps:
//
//   - the floor: the link's round trip without a queue, the least seen.
//     It rises only when every round trip of a 10-second window passed
//     it by more than the queue the host allows itself adds (a path that
//     got longer).
//   - the rate: the most bytes a tick the client acknowledged.
//
// It holds back a client's updates while the newest round trip shows a
// queue (past the floor by half of backlogDelay) and the bytes in flight
// (sent after the newest update acknowledged) pass what the rate carries
// in the floor and backlogDelay: the rate's worth of backlogDelay may
// queue, no more. Where the budget is the limit, nothing queues and
// nothing is held back, so a burst after a quiet spell goes at the
// budget. Without an ack of a newer update for the floor and
// backlogDelay, one update goes even so, so that a client whose updates
// in flight were all lost acknowledges again.

// backlogDelay is the queue, in ticks of the client's rate, the host
// lets its updates wait in: a quarter of a second, the age past which the
// transports drop a datagram waiting in their own queues as stale.
func (h *Host) backlogDelay() uint32 { return uint32(h.cfg.TickRate/4) + 1 }

// floorWindow is the window, in seconds, of a client's round trips that
// may raise its floor (the least of them, when past the floor by more
// than floorMargin), and of its rate (the most bytes a tick of this
// window and the last).
const floorWindow = 10

// floorMargin is how far past the floor every round trip of a window
// must be for the floor to rise to them: twice backlogDelay and an
// update at the client's rate, more than the queue the host allows
// itself (its window, and the update that passes it) adds.
func (h *Host) floorMargin(c *hostClient) uint32 {
	rate := max(c.rate[0], c.rate[1], 1)
	return 2*h.backlogDelay() + uint32(h.cfg.MTU+overhead)/rate + 1
}

// noFloor is a floor with no sample.
const noFloor = ^uint32(0)

// noteAck notes an ack of pk, newer than any update acknowledged before:
// its round trip counts toward the client's floor, and the bytes
// acknowledged since the last sample, once a floor (and 4 ticks) passed,
// toward its rate.
func (h *Host) noteAck(c *hostClient, pk *packet) {
	c.ackedAt = h.tick
	if h.tick-c.floorAt >= uint32(floorWindow*h.cfg.TickRate) {
		if c.winMin != noFloor && c.winMin > c.floor+h.floorMargin(c) {
			c.floor = c.winMin // a longer path
		}
		c.winMin = noFloor
		c.rate[1], c.rate[0] = c.rate[0], 0
		c.floorAt = h.tick
	}
	rtt := h.tick - pk.tick
	c.lastRTT = rtt
	c.floor, c.winMin = min(c.floor, rtt), min(c.winMin, rtt)
	switch span := h.tick - c.rateTick; {
	case c.rateTick == 0 || pk.cum < c.rateCum:
		c.rateCum, c.rateTick = pk.cum, h.tick
	case span >= max(c.floor, 4):
		c.rate[0] = max(c.rate[0], uint32(min((pk.cum-c.rateCum)/uint64(span), 1<<31)))
		c.rateCum, c.rateTick = pk.cum, h.tick
	}
}

// backlogged says whether the client's updates queue on their way: the
// newest round trip passed the floor by half of backlogDelay (a queue:
// without one, a rate measured while the host had little to send must
// not hold back a burst), what it has in flight passed its rate's worth
// of the floor and backlogDelay, and the acks moved on within that
// time.
func (h *Host) backlogged(c *hostClient) bool {
	floor, rate := c.floor, max(c.rate[0], c.rate[1])
	if c.ackSeq == 0 || floor == noFloor || rate == 0 {
		return false // nothing acknowledged this epoch, or nothing measured yet
	}
	pk := &c.packets[c.ackSeq%packetRing]
	if pk.seq != c.ackSeq {
		return false
	}
	allowed := floor + h.backlogDelay()
	if c.lastRTT <= floor+h.backlogDelay()/2 {
		return false
	}
	if c.sentBytes-pk.cum <= uint64(rate)*uint64(allowed) || h.tick-c.ackedAt >= allowed {
		return false
	}
	c.stats.HeldBack++
	return true
}
