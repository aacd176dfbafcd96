package authority

import (
	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
)

// Fragmentation: a state body is cut into chunks of wire.MaxChunk bytes
// (the last shorter), at most wire.MaxFragments. The host keeps the last
// outboxLen bodies of more than one fragment it sent each client for
// repair (one in a single packet is whole or lost); a client's Nack names
// the missing chunks of one of them. Each Nack resends each named chunk at
// most once, and at most maxNacks Nacks are answered per body: what a
// client can make the host send is bounded by what the host sent, not by
// how often it asks.

const (
	// outboxLen covers a round trip of ticks: a Nack names a body sent up
	// to that many ticks before (at 60 Hz, 133 ms plus the client's wait).
	outboxLen = 8
	maxNacks  = 3
	// doneWindow is how many body numbers at and before the newest taken
	// are done with (their late fragments dropped). Further behind is a
	// new body: a forged body number far ahead, taken, does not make the
	// host's own look old.
	doneWindow = 64
	// staleTicks is how long an incomplete body holds its slot without a
	// new fragment; then a new body may take it (a forged fragment of a
	// body that never completes cannot hold the slots).
	staleTicks = 60
)

// sentBody is a body kept for repair.
type sentBody struct {
	msg    uint32
	count  uint8
	nacks  uint8
	body   []byte
	frame  rollnet.Frame
	active bool
}

func (s *sentBody) chunk(i int) []byte {
	lo := i * wire.MaxChunk
	return s.body[lo:min(lo+wire.MaxChunk, len(s.body))]
}

// outbox is the bodies sent to one client.
type outbox struct {
	next  uint32 // number of the next body
	slots [outboxLen]sentBody
}

func newOutbox(bodyCap int) outbox {
	var o outbox
	for i := range o.slots {
		o.slots[i].body = make([]byte, 0, bodyCap)
	}
	return o
}

// claim returns the slot for a new body (the older one is overwritten).
func (o *outbox) claim(frame rollnet.Frame) *sentBody {
	s := &o.slots[o.next%outboxLen]
	*s = sentBody{msg: o.next, body: s.body[:0], frame: frame, active: true}
	o.next++
	return s
}

// find returns the kept body numbered msg, or nil.
func (o *outbox) find(msg uint32) *sentBody {
	s := &o.slots[msg%outboxLen]
	if !s.active || s.msg != msg {
		return nil
	}
	return s
}

func fragmentCount(n int) int { return (n + wire.MaxChunk - 1) / wire.MaxChunk }

// assembly collects the fragments of one body.
type assembly struct {
	msg    uint32
	count  uint8
	have   uint64
	last   int // length of the last chunk
	active bool
	lastAt int64 // when its newest fragment arrived (client ticks)
	nackAt int64 // when the last Nack for it went out
	nacks  uint8
	buf    []byte // MaxStateBody
}

func (a *assembly) body() []byte {
	return a.buf[:int(a.count-1)*wire.MaxChunk+a.last]
}

func (a *assembly) missing() uint64 { return fullMask(a.count) &^ a.have }

func fullMask(count uint8) uint64 {
	if count >= 64 {
		return ^uint64(0)
	}
	return 1<<count - 1
}

// reassembler holds the two newest bodies being received.
type reassembler struct {
	slots  [2]assembly
	newest uint32 // newest body number completed (valid when done)
	done   bool
}

func newReassembler(bodyCap int) reassembler {
	var r reassembler
	for i := range r.slots {
		r.slots[i].buf = make([]byte, bodyCap)
	}
	return r
}

// add takes one fragment. It returns the slot when that fragment
// completed its body, and bad when the fragment contradicts what came
// before (counted as malformed by the caller). Fragments of bodies older
// than both held, or just behind the newest taken, are dropped.
func (r *reassembler) add(f wire.StateFragment, now int64) (done *assembly, bad bool) {
	if d := int32(f.Msg - r.newest); r.done && d <= 0 && d > -doneWindow {
		return nil, false
	}
	var a *assembly
	for i := range r.slots {
		if s := &r.slots[i]; s.active && s.msg == f.Msg {
			a = s
		} else if s.active && now-s.lastAt > staleTicks {
			s.active = false
		}
	}
	if a == nil {
		// A new body: take a free slot, else the older one, unless this
		// body is older than both.
		a = &r.slots[0]
		if r.slots[0].active && (!r.slots[1].active || int32(r.slots[1].msg-r.slots[0].msg) < 0) {
			a = &r.slots[1]
		}
		if a.active && int32(f.Msg-a.msg) < 0 {
			return nil, false
		}
		*a = assembly{msg: f.Msg, count: f.Count, active: true, buf: a.buf, nackAt: now}
	}
	if f.Count != a.count {
		return nil, true
	}
	last := f.Index == f.Count-1
	if !last && len(f.Chunk) != wire.MaxChunk {
		return nil, true
	}
	bit := uint64(1) << f.Index
	if a.have&bit != 0 {
		return nil, false // a duplicate or a repair already received
	}
	a.have |= bit
	a.lastAt = now
	copy(a.buf[int(f.Index)*wire.MaxChunk:], f.Chunk)
	if last {
		a.last = len(f.Chunk)
	}
	if a.have != fullMask(a.count) {
		return nil, false
	}
	return a, false
}

// finish marks a completed body whose state was taken as consumed: it and
// anything older are done with.
func (r *reassembler) finish(a *assembly) {
	r.newest, r.done = a.msg, true
	for i := range r.slots {
		if s := &r.slots[i]; s.active && int32(s.msg-a.msg) <= 0 {
			s.active = false
		}
	}
}

// codedLen is how many coded parts of one frame's state the host keeps:
// one per base acknowledged by its clients (they acknowledge within a
// round trip of each other, so a few). Past it, a part is coded again
// for each client (into the spare).
const codedLen = 8

// codedCache is the coded parts (StateBody.AppendCoded) of the newest
// frame's state, by base.
type codedCache struct {
	frame rollnet.Frame
	n     int
	base  [codedLen]rollnet.Frame
	buf   [codedLen][]byte
	spare []byte
}

func newCodedCache(bodyCap int) codedCache {
	c := codedCache{frame: rollnet.NoFrame, spare: make([]byte, 0, bodyCap)}
	for i := range c.buf {
		c.buf[i] = make([]byte, 0, bodyCap)
	}
	return c
}

// reset empties the cache for frame f.
func (c *codedCache) reset(f rollnet.Frame) { c.frame, c.n = f, 0 }

func (c *codedCache) find(base rollnet.Frame) ([]byte, bool) {
	for i := range c.n {
		if c.base[i] == base {
			return c.buf[i], true
		}
	}
	return nil, false
}

// put codes m's part and keeps it under base (in the spare when full).
func (c *codedCache) put(base rollnet.Frame, m wire.StateBody) []byte {
	if c.n == codedLen {
		c.spare = m.AppendCoded(c.spare[:0])
		return c.spare
	}
	i := c.n
	c.n++
	c.base[i] = base
	c.buf[i] = m.AppendCoded(c.buf[i][:0])
	return c.buf[i]
}
