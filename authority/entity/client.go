package entity

import (
	"fmt"

	"github.com/rollnet/rollnet"
)

// ClientConfig configures a Client: the same Capacity and Size as the
// host's.
type ClientConfig struct {
	Capacity int
	Size     int
	// History is how many states of each entity the mirror keeps, newest
	// last, for Playout to blend at a render time (0 means 1: the newest
	// alone; at most 16). It costs Capacity×History×(Size+4) bytes.
	History int
}

// maxBridge is the most ticks Playout blends across: between two states
// further apart it holds the older until maxBridge ticks before the newer.
// An entity is sent only when it changes, so a long gap is mostly rest
// followed by motion, which a blend over the whole gap would start early.
const maxBridge = 8

// Client is a mirror of the entities a host replicates to one client:
// it applies updates (entered, changed, left; the newest update wins per
// entity, whatever order they arrive in) and acknowledges what it
// applied. It does no I/O and does not allocate after NewClient. A
// Client is not safe for concurrent use.
type Client struct {
	size    int
	present []bool
	gen     []uint16
	seq     []uint32 // by index: the newest update applied to it
	tick    []uint32 // by index: the host tick of its state
	data    []byte

	hist     int      // states kept per entity (History)
	histN    []uint8  // by index: states kept
	histTick []uint32 // by index, hist each: their ticks, oldest first
	histData []byte   // by index, hist×size each: their encodings

	epoch  uint8
	newest uint32 // newest update applied this epoch, 0 for none
	bits   uint64 // bit i: update newest-1-i applied
	digest uint64
	count  int
	acks   uint32 // acks sent
	stats  ClientStats
}

// State is an entity as a Client's mirror holds it.
type State struct {
	Key  Key
	Tick uint32 // the host tick the state is of
	Data []byte // the game's encoding (aliases the mirror until the next Receive)
}

// ClientStats are a client's counters. Gaps, Stale and Divergences are
// kept apart on purpose: the wire lost something, a record named an
// occupant the mirror does not hold, the host found the sets disagree.
type ClientStats struct {
	Entities int    // in the mirror
	Digest   uint64 // sum of their key terms
	Epoch    uint8
	Tick     uint32 // host tick of the newest update applied

	Updates     uint64 // updates applied
	Records     uint64 // records applied (older ones skipped are not counted)
	Gaps        uint64 // update numbers skipped when a newer one arrived
	Late        uint64 // updates dropped: duplicates, older than the ack window or of an old epoch
	Stale       uint64 // records naming an occupant the mirror does not hold
	Divergences uint64 // rebuilds the host ordered (a new epoch after the first)
	Malformed   uint64 // updates that did not parse, dropped whole
}

// NewClient returns an empty mirror.
func NewClient(cfg ClientConfig) (*Client, error) {
	if cfg.Capacity <= 0 || cfg.Capacity > 1<<24 || cfg.Size <= 0 || cfg.Size > 1024 || cfg.History < 0 || cfg.History > 16 {
		return nil, fmt.Errorf("%w: entity: Capacity %d (1 to 2^24), Size %d (1 to 1024) or History %d (0 to 16)", rollnet.ErrConfig, cfg.Capacity, cfg.Size, cfg.History)
	}
	c := &Client{
		size:    cfg.Size,
		present: make([]bool, cfg.Capacity),
		gen:     make([]uint16, cfg.Capacity),
		seq:     make([]uint32, cfg.Capacity),
		tick:    make([]uint32, cfg.Capacity),
		data:    make([]byte, cfg.Capacity*cfg.Size),
		hist:    max(cfg.History, 1),
	}
	if c.hist > 1 {
		c.histN = make([]uint8, cfg.Capacity)
		c.histTick = make([]uint32, cfg.Capacity*c.hist)
		c.histData = make([]byte, cfg.Capacity*c.hist*cfg.Size)
	}
	return c, nil
}

// Receive applies an update from the host. A malformed one is counted
// and dropped whole (ErrMalformed); a late or duplicate one is counted
// and dropped without error.
func (c *Client) Receive(b []byte) error {
	u, _, err := parseUpdate(b, c.size, len(c.present))
	if err != nil {
		c.stats.Malformed++
		return fmt.Errorf("%w: update: %w", ErrMalformed, err)
	}
	if u.seq == 0 {
		c.stats.Malformed++
		return fmt.Errorf("%w: update numbered 0", ErrMalformed)
	}
	if u.epoch != c.epoch {
		if int8(u.epoch-c.epoch) < 0 {
			c.stats.Late++
			return nil
		}
		c.clear(u.epoch)
	}
	switch {
	case c.newest == 0 || u.seq > c.newest:
		if c.newest != 0 {
			d := u.seq - c.newest
			c.stats.Gaps += uint64(d - 1)
			if d > ackWindow { // the previous newest is out of the window too
				c.bits = 0
			} else {
				c.bits = c.bits<<d | 1<<(d-1)
			}
		}
		c.newest = u.seq
		c.stats.Tick = u.tick
	case c.newest-u.seq <= ackWindow && c.bits&(1<<(c.newest-u.seq-1)) == 0:
		c.bits |= 1 << (c.newest - u.seq - 1)
	default:
		c.stats.Late++ // a duplicate, or too old for an ack to name
		return nil
	}
	c.stats.Updates++
	next, rs := uint32(0), u.records
	for range u.count {
		r, n, _ := parseRecord(rs, next, c.size, len(c.present)) // checked by parseUpdate
		rs = rs[n:]
		next = r.index + 1
		c.apply(r, u.seq, u.tick)
	}
	return nil
}

// apply applies one record of update seq, unless a newer update already
// named its entity.
func (c *Client) apply(r record, seq, tick uint32) {
	i := r.index
	if seq <= c.seq[i] {
		return
	}
	c.seq[i] = seq
	c.stats.Records++
	k := Key{Index: i, Gen: r.gen}
	held := c.present[i]
	if r.kind == kindLeft {
		if !held || c.gen[i] != r.gen {
			c.stats.Stale++
			return
		}
		c.present[i] = false
		c.digest -= mix(k)
		c.count--
		return
	}
	if held && c.gen[i] != r.gen {
		c.stats.Stale++ // the host names a later occupant: the old one's leave was lost
		c.digest -= mix(Key{Index: i, Gen: c.gen[i]})
		c.count--
		held = false
	}
	if !held {
		if r.kind == kindChanged {
			c.stats.Stale++ // its entered was lost; the state is whole, so it enters now
		}
		c.present[i] = true
		c.gen[i] = r.gen
		c.digest += mix(k)
		c.count++
		if c.histN != nil {
			c.histN[i] = 0 // a new occupant: none of the states kept are its
		}
	}
	c.tick[i] = tick
	copy(c.data[int(i)*c.size:], r.state)
	if c.histN != nil {
		c.keep(int(i), tick, r.state)
	}
}

// keep adds the state of index at tick to its history, dropping the
// oldest when full. Updates are applied newest-wins, so tick is never
// older than the newest kept; the same tick replaces it.
func (c *Client) keep(i int, tick uint32, state []byte) {
	h, size := c.hist, c.size
	ticks := c.histTick[i*h : (i+1)*h]
	data := c.histData[i*h*size : (i+1)*h*size]
	n := int(c.histN[i])
	switch {
	case n > 0 && ticks[n-1] >= tick:
		n--
	case n == h:
		copy(ticks, ticks[1:])
		copy(data, data[size:])
		n--
	}
	ticks[n] = tick
	copy(data[n*size:(n+1)*size], state)
	c.histN[i] = uint8(n + 1)
}

// Playout returns the two states of the entity at index around the render
// time t (in host ticks, fractional: a playout clock's T), and the weight
// of the later one: draw from + alpha×(to − from). Past its newest state
// (an entity is sent only when it changes) it holds the newest: from and
// to are the same and alpha 0; before its oldest kept, the oldest. Two
// states more than 8 ticks apart are blended over the last 8 only. ok is
// false when the mirror holds no such entity. The slices alias the mirror
// until the next Receive.
func (c *Client) Playout(index int, t float64) (from, to []byte, alpha float32, ok bool) {
	if index < 0 || index >= len(c.present) || !c.present[index] {
		return nil, nil, 0, false
	}
	size := c.size
	if c.histN == nil || c.histN[index] == 0 {
		s := c.data[index*size : (index+1)*size : (index+1)*size]
		return s, s, 0, true
	}
	h := c.hist
	ticks := c.histTick[index*h : index*h+int(c.histN[index])]
	data := c.histData[index*h*size : (index+1)*h*size]
	at := func(j int) []byte { return data[j*size : (j+1)*size : (j+1)*size] }
	n := len(ticks)
	if t >= float64(ticks[n-1]) {
		return at(n - 1), at(n - 1), 0, true
	}
	if t <= float64(ticks[0]) {
		return at(0), at(0), 0, true
	}
	j := n - 1
	for float64(ticks[j-1]) > t {
		j--
	}
	t0, t1 := float64(ticks[j-1]), float64(ticks[j])
	t0 = max(t0, t1-maxBridge)
	if t <= t0 {
		return at(j - 1), at(j - 1), 0, true
	}
	return at(j - 1), at(j), float32((t - t0) / (t1 - t0)), true
}

// clear empties the mirror for a new epoch.
func (c *Client) clear(epoch uint8) {
	c.stats.Divergences++
	clear(c.present)
	clear(c.seq)
	clear(c.histN)
	c.epoch = epoch
	c.newest, c.bits = 0, 0
	c.digest, c.count = 0, 0
}

// AppendAck appends the client's ack to dst and returns the extended
// slice; dst unchanged before the first update. Send one after the
// updates of each tick were received.
func (c *Client) AppendAck(dst []byte) []byte {
	if c.newest == 0 {
		return dst
	}
	c.acks++
	return ack{epoch: c.epoch, number: c.acks, seq: c.newest, bits: c.bits, count: uint32(c.count), digest: c.digest}.Append(dst)
}

// Entity returns the mirror's state of the entity at index, and whether
// the mirror holds one.
func (c *Client) Entity(index int) (State, bool) {
	if index < 0 || index >= len(c.present) || !c.present[index] {
		return State{}, false
	}
	return State{
		Key:  Key{Index: uint32(index), Gen: c.gen[index]},
		Tick: c.tick[index],
		Data: c.data[index*c.size : (index+1)*c.size : (index+1)*c.size],
	}, true
}

// Stats returns the client's counters.
func (c *Client) Stats() ClientStats {
	s := c.stats
	s.Entities, s.Digest, s.Epoch = c.count, c.digest, c.epoch
	return s
}
