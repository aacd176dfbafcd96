package entity

import (
	"math"
	"slices"
)

// hostClient is what a Host keeps for one client.
type hostClient struct {
	entries   []entry // where an entry stays until it is freed, so a record names it by position
	free      []int32 // entries freed, to be reused
	interest  []int32
	cands     []cand
	minLen    int      // the shortest record of cands
	candBytes int      // the records of cands, in all
	sel       []uint64 // index<<32 | entry

	asked    bool   // Interest was asked about it
	gathered uint32 // the tick of its last gather
	nextSeq  uint32
	packets  [packetRing]packet // by seq % packetRing
	recs     []uint32           // ring of records sent: entry<<2 | kind
	recHead  uint64             // records ever written

	epoch        uint8
	announce     bool   // a rebuild not yet acked: send updates even without records
	announced    uint32 // the tick of the last update sent
	ackSeq       uint32 // newest update acked, this epoch
	ackBits      uint64 // bit i: update ackSeq-1-i was named by an ack
	ackNumber    uint32 // the number of the last ack read
	acksThisTick int
	tokens       int64 // budget, in bytes times TickRate
	rtt          float32
	floor        uint32    // least round trip (ticks), the link without a queue (noFloor: none)
	winMin       uint32    // least round trip of this window
	lastRTT      uint32    // the newest round trip
	floorAt      uint32    // the tick this window started
	ackedAt      uint32    // the tick an ack last acknowledged a newer update
	sentBytes    uint64    // bytes sent, headers counted (packet.cum)
	rate         [2]uint32 // most bytes a tick acknowledged, this window and the last
	rateCum      uint64    // the rate sample's start: the cum of the update acked
	rateTick     uint32    // and when (0: none yet)

	digest uint64 // of the set as the acks built it
	count  int
	stats  HostStats
}

// entry is an entity the host holds for a client: in its set, entering
// or leaving. What every tick reads comes first, then (entrySend) what
// sending and acks need, in one place: with the two in arrays apart, an
// ack's records and a tick's candidates each read a second, cold line,
// which cost more than the longer run of entries a tick reads.
type entry struct {
	index   uint32 // its key's
	gen     uint16
	want    bool // in the set this tick
	ackedIn bool // in the set as the acks built it
	// clean: at the client's last gather the entity was live, wanted,
	// and its current state acknowledged. Only a gather with
	// HostConfig.Changed reads it; anything that may undo it clears it.
	clean         bool
	sentState     bool // a state was sent since the last acked leave: the client may hold it
	lastSentState bool
	lastRelevant  uint32 // the tick interest last named it
	ackedTick     uint32 // the tick of the newest state acked, 0 for none
	entrySend
}

func (e *entry) key() Key { return Key{Index: e.index, Gen: e.gen} }

// entrySend is what an entry needs when it is sent or acked.
type entrySend struct {
	since    uint32 // the first update that may name this entry
	evSeq    uint32 // the newest acked update that named it
	sentTick uint32 // the tick it was last sent
	stateSeq uint32 // the update that last carried its state
	prio     float32
}

// packetRing holds the updates an ack may name: the newest and the 64
// before it.
const packetRing = 128

// packet is what the host remembers of an update it sent.
type packet struct {
	seq, tick uint32
	start     uint64 // first record in the ring
	cum       uint64 // bytes sent the client up to it, headers counted
	n         uint32
	acked     bool
}

// cand is an entry that needs sending, with its priority: key orders
// cands as before wants, in one comparison.
type cand struct {
	key uint64 // the priority's bits inverted (a priority is not negative), then the index
	pos int32  // its entry
	n   int32  // its record's length
}

func candKey(prio float32, index uint32) uint64 {
	return uint64(^math.Float32bits(prio))<<32 | uint64(index)
}

func (cd cand) index() uint32 { return uint32(cd.key) }

// before says whether a goes before b: higher priority first, then lower
// index.
func before(a, b cand) bool { return a.key < b.key }

// heapify orders cs as a heap: cs[0] goes before the others.
func heapify(cs []cand) {
	for i := len(cs)/2 - 1; i >= 0; i-- {
		siftDown(cs, i)
	}
}

// popHeap removes cs[0] from the heap cs and returns the rest, a heap.
func popHeap(cs []cand) []cand {
	n := len(cs) - 1
	cs[0] = cs[n]
	cs = cs[:n]
	siftDown(cs, 0)
	return cs
}

func siftDown(cs []cand, i int) {
	for {
		l := 2*i + 1
		if l >= len(cs) {
			return
		}
		if r := l + 1; r < len(cs) && before(cs[r], cs[l]) {
			l = r
		}
		if !before(cs[l], cs[i]) {
			return
		}
		cs[i], cs[l] = cs[l], cs[i]
		i = l
	}
}

// freeEntry is the index of a freed entry.
const freeEntry = ^uint32(0)

// add starts an entry and returns its position.
func (c *hostClient) add(e entry) int32 {
	if n := len(c.free); n > 0 {
		i := c.free[n-1]
		c.free = c.free[:n-1]
		c.entries[i] = e
		return i
	}
	c.entries = append(c.entries, e)
	c.free = slices.Grow(c.free, cap(c.entries)-len(c.free)) // room to free them all, so remove never grows it
	return int32(len(c.entries) - 1)
}

// remove forgets entry i: no record names it any more, since no update
// is as new as its since (a later occupant of its place has a later one).
func (c *hostClient) remove(i int32) {
	c.entries[i] = entry{index: freeEntry, entrySend: entrySend{since: ^uint32(0)}}
	c.free = append(c.free, i)
}

// recordRoom is how many records the next update may hold without
// overwriting those of an update an ack may still name: an ack of the
// next update names the 64 before it.
func (c *hostClient) recordRoom() int {
	used := c.recHead
	if c.nextSeq > ackWindow {
		used -= c.packets[(c.nextSeq-ackWindow)%packetRing].start
	}
	return len(c.recs) - int(min(used, uint64(len(c.recs))))
}

// rebuild starts the client's set over in a new epoch: the client clears
// its mirror when the epoch's first update arrives, and every entry is
// entered again.
func (c *hostClient) rebuild() {
	c.epoch++
	c.announce = true
	c.ackSeq, c.ackBits = 0, 0
	c.digest, c.count = 0, 0
	for i := range c.packets {
		c.packets[i].acked = true // acks of the old epoch name them
	}
	for i := range c.entries {
		e := &c.entries[i]
		s := &e.entrySend
		if e.index == freeEntry {
			continue
		}
		s.since = c.nextSeq
		e.ackedTick, e.ackedIn, e.clean = 0, false, false
		s.evSeq, s.sentTick, s.stateSeq = 0, 0, 0
		e.sentState, e.lastSentState = false, false
	}
}
