package entity

import (
	"encoding/binary"
	"fmt"
	mbits "math/bits"
	"slices"

	"github.com/rollnet/rollnet"
)

// Overhead is what the budget counts for each datagram beyond its
// payload: an IPv4 header and a UDP header.
const overhead = 28

// maxAcksPerTick bounds the acks the host reads from one client per
// tick; more are counted (HostStats.Flooded) and dropped unread.
const maxAcksPerTick = 4

// HostConfig configures a Host. A zero field means its documented
// default; Capacity, Size, Encode and Interest are required.
type HostConfig struct {
	// Capacity is the length of the game's entity table (its []Slot).
	Capacity int
	// Size is the length of one entity's wire encoding, in bytes (1 to
	// 1,024).
	Size int
	// Encode writes the wire encoding of the live entity at index into
	// dst (Size bytes): the game's quantization. The host's simulation
	// keeps its exact values; clients receive these bytes. It is called
	// during the tick's Appends, at most once a tick for each entity some
	// client holds or is entering (an entity no client holds costs
	// nothing), so the game leaves what it encodes as it was at Tick until
	// the tick's last Append. With Changed set, it is called only for
	// the entities Changed named since their last encoding, and for a
	// slot's new occupant.
	Encode func(dst []byte, index int)
	// Changed, if set, appends to dst the indices of the entities whose
	// encoding may have changed since the previous Tick, and returns the
	// extended slice; Tick calls it once. The host then encodes an entity
	// again only when Changed named it (or its slot has a new occupant),
	// instead of every entity some client holds, every tick: a game that
	// knows what it moved saves an Encode and a compare per held entity,
	// and most of the look at each entity a client holds whose state it
	// has acknowledged (all of it on the ticks the host does not ask
	// Interest about the client). An entity it does not name is taken as
	// unchanged, so a game that sets Changed must name every change, a
	// despawn or a spawn included (one it does not name is seen when
	// Interest is next asked about each client). Indices out of range are
	// ignored; repeats cost nothing more. Nil means every held entity is
	// encoded each tick.
	Changed func(dst []int32) []int32
	// Interest appends to dst the indices relevant to client and returns
	// the extended slice (a Grid's AppendNear fits). Indices of free
	// slots, out of range or repeated are ignored.
	Interest func(client int, dst []int32) []int32
	// Priority, if set, returns what an entity that client has to be sent
	// gains each tick beyond 1 (near the player, just hit). Negative
	// values count as 0.
	Priority func(client, index int) float32
	// BytesPerSecond is each client's budget, counting 28 bytes of IP
	// and UDP header per datagram. Zero means 16,000 (128 kbps).
	BytesPerSecond int
	// TickRate is how many times a second Append is called per client.
	// Zero means 60.
	TickRate int
	// MTU bounds an update's payload. Zero means 1,200.
	MTU int
	// Linger is how many ticks an entity stays in a client's set after
	// it was last relevant (the hysteresis on leaving). Zero means 30.
	Linger int
	// InterestEvery is how many ticks apart the host asks Interest about
	// one client (1 to Linger): each tick it asks about a share of the
	// clients, so the queries cost 1/InterestEvery of asking every client
	// every tick. An entity that becomes relevant enters up to
	// InterestEvery-1 ticks late, and Linger counts from the last time
	// Interest named it. The host asks about a client the first time
	// its update is built, whatever the tick. Zero means 1: every client,
	// every tick.
	InterestEvery int
}

// Host replicates a game's entity table to clients: per client, the
// entities its interest names enter (their whole state), change (their
// whole state, when it differs from what that client acknowledged of
// that entity) and leave, highest accumulated priority first, within the
// client's budget. It does no I/O: the game moves its updates and acks.
// A Host is not safe for concurrent use.
type Host struct {
	cfg     HostConfig
	tick    uint32
	slots   []Slot
	cur     []byte     // by index: Size bytes of this tick's encoding
	scratch []byte     // one encoding
	enc     []encState // by index
	fresh   uint32     // what encode sets encState.fresh to: this tick, or never stale with Changed set
	changed []int32    // Changed's answer
	named   []uint64   // by index, a bit: Changed named it at this Tick
	stale   []uint64   // by index, a bit: Changed named it since its last encoding
	stamp   uint32     // of the client being appended: it named an index marked stamp, claimed one stamp+1
	mark    []uint32   // by index: the stamp of the interest query that last named it (apart from enc, 4 bytes an entity, so the marks stay in the cache)
	clients []*hostClient
	free    []int
}

// encState is until when an entity's encoding is current, when it was
// last seen to change, and the generation it is of.
type encState struct {
	fresh     uint32 // current while fresh >= tick (the tick encoded), or ^0 with Changed set: current unless its stale bit is set
	changedAt uint32
	gen       uint16
}

// NewHost returns a host for a table of cfg.Capacity entities.
func NewHost(cfg HostConfig) (*Host, error) {
	switch {
	case cfg.Capacity <= 0 || cfg.Capacity > 1<<24:
		return nil, fmt.Errorf("%w: entity: Capacity %d, want 1 to 2^24", rollnet.ErrConfig, cfg.Capacity)
	case cfg.Size <= 0 || cfg.Size > 1024:
		return nil, fmt.Errorf("%w: entity: Size %d, want 1 to 1024", rollnet.ErrConfig, cfg.Size)
	case cfg.Encode == nil || cfg.Interest == nil:
		return nil, fmt.Errorf("%w: entity: Encode and Interest are required", rollnet.ErrConfig)
	case cfg.BytesPerSecond < 0 || cfg.TickRate < 0 || cfg.MTU < 0 || cfg.Linger < 0 || cfg.InterestEvery < 0:
		return nil, fmt.Errorf("%w: entity: negative BytesPerSecond, TickRate, MTU, Linger or InterestEvery", rollnet.ErrConfig)
	}
	if cfg.BytesPerSecond == 0 {
		cfg.BytesPerSecond = 16000
	}
	if cfg.TickRate == 0 {
		cfg.TickRate = 60
	}
	if cfg.MTU == 0 {
		cfg.MTU = 1200
	}
	if cfg.Linger == 0 {
		cfg.Linger = 30
	}
	if cfg.InterestEvery == 0 {
		cfg.InterestEvery = 1
	}
	if cfg.InterestEvery > cfg.Linger {
		return nil, fmt.Errorf("%w: entity: InterestEvery %d is past Linger %d: an entity named at every question would leave between them", rollnet.ErrConfig, cfg.InterestEvery, cfg.Linger)
	}
	if cfg.MTU < updateHeaderMax+8+cfg.Size {
		return nil, fmt.Errorf("%w: entity: MTU %d holds no record of Size %d", rollnet.ErrConfig, cfg.MTU, cfg.Size)
	}
	h := &Host{
		cfg:     cfg,
		cur:     make([]byte, cfg.Capacity*cfg.Size),
		scratch: make([]byte, cfg.Size),
		enc:     make([]encState, cfg.Capacity),
		mark:    make([]uint32, cfg.Capacity),
	}
	if cfg.Changed != nil {
		h.changed = make([]int32, 0, cfg.Capacity)
		h.named = make([]uint64, (cfg.Capacity+63)/64)
		h.stale = make([]uint64, (cfg.Capacity+63)/64)
	}
	return h, nil
}

// AddClient adds a client with an empty set and returns its number,
// which Append, Receive and Stats take. Numbers of removed clients are
// reused.
func (h *Host) AddClient() int {
	perTick := h.cfg.BytesPerSecond/h.cfg.TickRate + 1
	c := &hostClient{
		nextSeq: 1,
		recs:    make([]uint32, ((ackWindow+1)*perTick+2*h.cfg.MTU)/2+1),
		rtt:     6,
		floor:   noFloor,
		winMin:  noFloor,
		floorAt: h.tick,
	}
	if n := len(h.free); n > 0 {
		id := h.free[n-1]
		h.free = h.free[:n-1]
		h.clients[id] = c
		return id
	}
	h.clients = append(h.clients, c)
	return len(h.clients) - 1
}

// RemoveClient forgets client; its number may be handed out again.
func (h *Host) RemoveClient(client int) {
	if h.client(client) != nil {
		h.clients[client] = nil
		h.free = append(h.free, client)
	}
}

func (h *Host) client(id int) *hostClient {
	if id < 0 || id >= len(h.clients) {
		return nil
	}
	return h.clients[id]
}

// Tick starts a tick over the game's table (len(slots) is Capacity; the
// host reads it until the next Tick). Call it once per tick, after the
// simulation step and before the tick's Appends.
func (h *Host) Tick(slots []Slot) {
	h.tick++
	h.slots = slots[:h.cfg.Capacity]
	h.fresh = h.tick
	if h.cfg.Changed != nil {
		h.fresh = ^uint32(0)
		named, stale, n := h.named, h.stale, uint32(h.cfg.Capacity)
		if len(h.changed) < len(named) { // the last Tick's, cleared
			for _, idx := range h.changed {
				if uint32(idx) < n {
					named[idx>>6] = 0
				}
			}
		} else {
			clear(named)
		}
		h.changed = h.cfg.Changed(h.changed[:0])
		for _, idx := range h.changed {
			if uint32(idx) < n {
				named[idx>>6] |= 1 << (idx & 63)
				stale[idx>>6] |= 1 << (idx & 63)
			}
		}
	}
	for _, c := range h.clients {
		if c != nil {
			c.acksThisTick = 0
		}
	}
}

// encode encodes the live entity at idx, the first time in a tick a
// client's update needs it and its encoding is not current (the caller
// checks fresh and gen), and returns the tick its encoding last changed. An entity not encoded for some
// ticks is compared with its last encoding: a change is seen at the tick
// it is first looked at, never after a state of it was sent (sending
// encodes), so a client that acknowledged an older state is sent the new
// one.
func (h *Host) encode(idx uint32) uint32 {
	st := &h.enc[idx]
	st.fresh, st.gen = h.fresh, h.slots[idx].Gen
	if h.stale != nil {
		h.stale[idx>>6] &^= 1 << (idx & 63)
	}
	size := h.cfg.Size
	h.cfg.Encode(h.scratch, int(idx))
	if refresh(h.cur[int(idx)*size:(int(idx)+1)*size], h.scratch) {
		st.changedAt = h.tick
	}
	return st.changedAt
}

// refresh copies next over cur (as long) and says whether they differed.
// It compares 8 bytes at a time and copies only a change, since
// encodings are short and most do not change.
func refresh(cur, next []byte) (changed bool) {
	next = next[:len(cur)]
	var diff uint64
	i := 0
	for ; i+8 <= len(cur); i += 8 {
		diff |= binary.LittleEndian.Uint64(cur[i:]) ^ binary.LittleEndian.Uint64(next[i:])
	}
	for ; i < len(cur); i++ {
		diff |= uint64(cur[i] ^ next[i])
	}
	if diff != 0 {
		copy(cur, next)
	}
	return diff != 0
}

// Append appends the client's update for this tick to dst and returns
// the extended slice: dst unchanged when there is nothing to send or the
// budget has no room yet. It does not allocate once the client's set has
// reached its largest size and dst has room for an MTU.
func (h *Host) Append(dst []byte, client int) []byte {
	c := h.client(client)
	if c == nil || h.slots == nil {
		return dst
	}
	rate := int64(h.cfg.TickRate)
	c.tokens = min(c.tokens+int64(h.cfg.BytesPerSecond), int64(h.cfg.MTU+overhead)*rate+int64(h.cfg.BytesPerSecond))
	h.gather(client, c)
	limit := min(int64(h.cfg.MTU), c.tokens/rate-overhead)
	announce := c.announce && h.tick-c.announced > uint32(c.rtt)+2
	if (len(c.cands) == 0 && !announce) || limit < int64(updateHeaderMax+8) || h.backlogged(c) {
		return dst
	}
	return h.write(dst, c, int(limit))
}

// gather asks the game which entities are relevant to the client (on
// the ticks it asks), starts an entry for each one new to it, decides for
// each entry whether it is in the set and what it needs sent, adds to the
// priority of those that need something, and lists them (c.cands). The
// indices the game names are marked in a table shared by the clients, so
// an entry finds whether it was named without a lookup. The common case,
// an entity in the set whose acknowledged state is current, costs a few
// loads; with HostConfig.Changed, such an entry found current at the
// client's last tick, whose entity Changed did not name, is current
// still (entry.clean): it costs only its own loads, and on the ticks the
// host asks about the client its slot and mark.
func (h *Host) gather(client int, c *hostClient) {
	every := uint32(h.cfg.InterestEvery)
	ask := every == 1 || !c.asked || (h.tick+uint32(client))%every == 0
	fast := h.cfg.Changed != nil && c.gathered != 0 && c.gathered == h.tick-1
	c.gathered = h.tick
	changedNow := h.named
	c.interest = c.interest[:0]
	if ask {
		c.asked = true
		c.interest = h.cfg.Interest(client, c.interest)
	}
	if h.stamp += 2; h.stamp < 2 { // wrapped: no mark may still claim the new stamp
		clear(h.mark)
		h.stamp = 2
	}
	named, claimed := h.stamp, h.stamp+1
	slots, enc := h.slots, h.enc[:len(h.slots)]
	mark := h.mark[:len(enc)]
	for _, idx := range c.interest {
		if uint32(idx) < uint32(len(mark)) {
			mark[idx] = named
		}
	}
	c.cands = c.cands[:0]
	c.minLen, c.candBytes = 1<<30, 0
	tick, linger, fresh, stale := h.tick, uint32(h.cfg.Linger), h.fresh, h.stale
	inFlight := uint32(c.rtt) + 2
	encode, scratch, cur, size := h.cfg.Encode, h.scratch, h.cur, h.cfg.Size
	entries := c.entries
	for i := range entries {
		e := &entries[i]
		idx := e.index
		if fast && e.clean && changedNow[idx>>6]&(1<<(idx&63)) == 0 {
			if !ask {
				if tick-e.lastRelevant <= linger {
					continue // current at the last tick, unchanged since, and still wanted
				}
			} else if s := slots[idx]; s.Live && s.Gen == e.gen { // as below, without reading enc
				if mark[idx] == named {
					mark[idx] = claimed
					e.lastRelevant = tick
				}
				if tick-e.lastRelevant <= linger {
					continue
				}
			}
		}
		if e.clean {
			e.clean = false
		}
		if idx >= uint32(len(slots)) {
			continue // freed
		}
		s, st := slots[idx], &enc[idx]
		live := s.Live && s.Gen == e.gen
		if ask && mark[idx] == named {
			mark[idx] = claimed // an old occupant still leaving holds the index
			if live {
				e.lastRelevant = tick
			}
		}
		want := live && tick-e.lastRelevant <= linger
		if want != e.want {
			e.want = want // written only when it changes, so the entries stay clean in the cache
		}
		if want {
			if st.fresh < tick || stale != nil && stale[idx>>6]&(1<<(idx&63)) != 0 { // encode's body, without its call
				st.fresh, st.gen = fresh, e.gen
				if stale != nil {
					stale[idx>>6] &^= 1 << (idx & 63)
				}
				encode(scratch, int(idx))
				if o := int(idx) * size; refresh(cur[o:o+size], scratch) {
					st.changedAt = tick
				}
			}
			changed := st.changedAt
			if e.ackedIn && changed <= e.ackedTick {
				e.clean = true
				continue // the client holds its current state
			}
			if e.lastSentState && e.sentTick >= changed && tick-e.sentTick < inFlight {
				continue // what was sent is current and may still be acknowledged (consider's test, without its call)
			}
			h.consider(client, c, e, int32(i), changed)
			continue
		}
		if !e.ackedIn && !e.sentState {
			c.remove(int32(i)) // the client was never told of it: forget it
			continue
		}
		h.consider(client, c, e, int32(i), 0)
	}
	for _, idx := range c.interest {
		if uint32(idx) >= uint32(len(mark)) || mark[idx] != named || !slots[idx].Live {
			continue // out of range, held already, repeated or free
		}
		mark[idx] = claimed
		i := c.add(entry{index: uint32(idx), gen: slots[idx].Gen, lastRelevant: tick, want: true, entrySend: entrySend{since: c.nextSeq}})
		changed := enc[idx].changedAt
		if enc[idx].fresh < tick || enc[idx].gen != slots[idx].Gen || stale != nil && stale[idx>>6]&(1<<(idx&63)) != 0 {
			changed = h.encode(uint32(idx))
		}
		h.consider(client, c, &c.entries[i], i, changed)
	}
}

// consider lists entry e (at pos) as a candidate when it needs sending,
// adding to its priority. For an entry in the set, changed is the tick
// its encoding last changed.
func (h *Host) consider(client int, c *hostClient, e *entry, pos int32, changed uint32) {
	idx := e.index
	s := &e.entrySend
	var need bool
	if e.want {
		need = !e.ackedIn || changed > e.ackedTick
		if need && e.lastSentState && s.sentTick >= changed && h.tick-s.sentTick < uint32(c.rtt)+2 {
			need = false // what was sent is current and may still be acknowledged
		}
	} else {
		need = e.lastSentState || h.tick-s.sentTick >= uint32(c.rtt)+2
	}
	if !need {
		return
	}
	w := float32(1)
	if h.cfg.Priority != nil && e.want {
		w += max(h.cfg.Priority(client, int(idx)), 0)
	}
	s.prio += w
	n := recordLen(idx, 0, kindLeft, e.gen, 0)
	if e.want {
		n += h.cfg.Size
	}
	c.minLen = min(c.minLen, n)
	c.candBytes += n
	c.cands = append(c.cands, cand{key: candKey(s.prio, idx), pos: pos, n: int32(n)})
}

// write appends an update of the highest-priority candidates that fit
// in limit bytes and in the record ring.
func (h *Host) write(dst []byte, c *hostClient, limit int) []byte {
	room := c.recordRoom()
	used := updateHeaderMax
	c.sel = c.sel[:0]
	// Highest priority first, from a heap: only what is sent, and what is
	// passed over on the way, is ordered. When every candidate fits, all
	// are sent, as the heap would send them, without ordering.
	heap := c.cands
	if used+c.candBytes <= limit && len(heap) <= room {
		for _, cd := range heap {
			c.sel = append(c.sel, uint64(cd.index())<<32|uint64(cd.pos))
		}
		heap = heap[:0]
	}
	heapify(heap)
	for len(heap) > 0 && len(c.sel) < room && used+c.minLen <= limit {
		cd := heap[0]
		heap = popHeap(heap)
		n := int(cd.n)
		if used+n > limit {
			continue // a smaller record may still fit
		}
		used += n
		c.sel = append(c.sel, uint64(cd.index())<<32|uint64(cd.pos))
	}
	if len(c.sel) == 0 && !c.announce {
		return dst
	}
	c.announced = h.tick
	slices.Sort(c.sel)
	start := len(dst)
	seq := c.nextSeq
	c.nextSeq++
	dst = appendUpdateHeader(dst, c.epoch, seq, h.tick, len(c.sel))
	pk := &c.packets[seq%packetRing]
	*pk = packet{seq: seq, tick: h.tick, start: c.recHead, n: uint32(len(c.sel))}
	next := uint32(0)
	size := h.cfg.Size
	ring := int(c.recHead % uint64(len(c.recs))) // divided once, not per record
	for _, sel := range c.sel {
		idx := uint32(sel >> 32)
		e := &c.entries[uint32(sel)]
		s := &e.entrySend
		r := record{index: idx, kind: kindLeft, gen: e.gen}
		if e.want {
			r.kind = kindChanged
			if !e.ackedIn {
				r.kind = kindEntered
			}
			r.state = h.cur[int(idx)*size : (int(idx)+1)*size]
			c.stats.States++
		}
		dst = appendRecord(dst, next, r)
		next = idx + 1
		c.recs[ring] = uint32(sel)<<2 | uint32(r.kind)
		if ring++; ring == len(c.recs) {
			ring = 0
		}
		c.recHead++
		s.prio = 0
		s.sentTick = h.tick
		e.lastSentState = e.want
		if e.want {
			e.sentState = true
			s.stateSeq = seq
		}
	}
	dst = finishUpdate(dst, start)
	n := len(dst) - start
	c.sentBytes += uint64(n + overhead)
	pk.cum = c.sentBytes
	c.tokens -= int64(n+overhead) * int64(h.cfg.TickRate)
	c.stats.Updates++
	c.stats.Bytes += uint64(n)
	c.stats.Records += uint64(len(c.sel))
	return dst
}

// Receive reads an ack from client. A malformed one is counted and
// dropped (ErrMalformed); one of an old epoch, one naming an update
// never sent, an old one replayed, or one past the tick's four are
// counted and dropped without error. A set that disagrees with what the
// acked updates built is counted (HostStats.Mismatches) and rebuilt: the
// epoch bumps, and every entity of the set is entered again.
func (h *Host) Receive(client int, b []byte) error {
	c := h.client(client)
	if c == nil {
		return nil
	}
	a, _, err := parseAck(b)
	if err != nil {
		c.stats.Malformed++
		return fmt.Errorf("%w: ack: %w", ErrMalformed, err)
	}
	switch {
	case a.epoch != c.epoch:
		c.stats.OldEpoch++
		return nil
	case a.seq == 0 || a.seq >= c.nextSeq:
		c.stats.Forged++
		return nil
	case a.number <= c.ackNumber:
		c.stats.Replayed++
		return nil
	case c.acksThisTick >= maxAcksPerTick:
		c.stats.Flooded++
		return nil
	}
	c.acksThisTick++
	c.stats.Acks++
	c.announce = false
	// Only the updates this ack names for the first time are applied:
	// c.ackBits says which of the 64 before c.ackSeq an earlier ack named.
	var known uint64
	if d := a.seq - c.ackSeq; c.ackSeq > 0 && a.seq >= c.ackSeq && d < 64 {
		known = c.ackBits << d
		if d > 0 {
			known |= 1 << (d - 1) // c.ackSeq itself
		}
	}
	bits := a.bits
	if a.seq <= ackWindow {
		bits &= 1<<(a.seq-1) - 1 // none before update 1
	}
	for todo := bits &^ known; todo != 0; {
		i := 63 - mbits.LeadingZeros64(todo) // oldest first
		todo &^= 1 << i
		h.acked(c, a.seq-1-uint32(i), false)
	}
	h.acked(c, a.seq, true)
	c.ackSeq, c.ackNumber, c.ackBits = a.seq, a.number, bits|known
	if a.digest != c.digest || int(a.count) != c.count {
		c.stats.Mismatches++
		c.rebuild()
	}
	return nil
}

// acked applies what update seq carried to the host's view of the
// client's set, once: newest update wins per entity, as on the client.
func (h *Host) acked(c *hostClient, seq uint32, newest bool) {
	pk := &c.packets[seq%packetRing]
	if pk.seq != seq || pk.acked {
		return
	}
	pk.acked = true
	if newest {
		c.rtt += (float32(h.tick-pk.tick) - c.rtt) / 8
		h.noteAck(c, pk)
	}
	ring := int(pk.start % uint64(len(c.recs))) // divided once, not per record
	for range pk.n {
		r := c.recs[ring]
		if ring++; ring == len(c.recs) {
			ring = 0
		}
		p := int32(r >> 2)
		e := &c.entries[p]
		s := &e.entrySend
		if seq < s.since || seq <= s.evSeq {
			continue // an update to an earlier (or a freed) entry, or older than one already acked
		}
		s.evSeq = seq
		if r&3 != kindLeft {
			if !e.ackedIn {
				e.ackedIn = true
				c.digest += mix(e.key())
				c.count++
			}
			e.ackedTick = pk.tick
			continue
		}
		e.clean = false // its state is no longer known to be held
		if e.ackedIn {
			e.ackedIn = false
			c.digest -= mix(e.key())
			c.count--
		}
		e.ackedTick = 0
		e.sentState = s.stateSeq > seq // a state sent after this leave may land
		if !e.want && !e.sentState {
			c.remove(p)
		}
	}
}

// HostStats are a host's counters for one client.
type HostStats struct {
	Entities int     // in the client's set, as its acks built it
	Digest   uint64  // of that set
	Tracked  int     // entities the host holds for it: in the set, entering or leaving
	Epoch    uint8   // bumps on every rebuild
	RTT      float32 // smoothed round trip, in ticks

	Updates uint64 // updates sent
	Bytes   uint64 // their payload bytes, without IP and UDP headers
	Records uint64 // records sent
	States  uint64 // of them, entered and changed (with a state)
	Acks    uint64 // acks read

	Mismatches uint64 // acks whose digest or count disagreed: a rebuild each
	Malformed  uint64 // acks that did not parse
	Forged     uint64 // acks naming an update never sent
	Replayed   uint64 // acks sent before one already read (replayed, or overtaken)
	Flooded    uint64 // acks past the tick's four, dropped unread
	OldEpoch   uint64 // acks of an epoch before the last rebuild

	// HeldBack counts ticks the host held back the client's update
	// because its updates queue on the way: the link is slower than the
	// budget (see the package documentation, "A slow link").
	HeldBack uint64
}

// Stats returns the counters for client.
func (h *Host) Stats(client int) HostStats {
	c := h.client(client)
	if c == nil {
		return HostStats{}
	}
	s := c.stats
	s.Entities, s.Digest, s.Tracked, s.Epoch, s.RTT = c.count, c.digest, len(c.entries)-len(c.free), c.epoch, c.rtt
	return s
}
