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
}

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
	if cfg.Capacity <= 0 || cfg.Capacity > 1<<24 || cfg.Size <= 0 || cfg.Size > 1024 {
		return nil, fmt.Errorf("%w: entity: Capacity %d (1 to 2^24) or Size %d (1 to 1024)", rollnet.ErrConfig, cfg.Capacity, cfg.Size)
	}
	return &Client{
		size:    cfg.Size,
		present: make([]bool, cfg.Capacity),
		gen:     make([]uint16, cfg.Capacity),
		seq:     make([]uint32, cfg.Capacity),
		tick:    make([]uint32, cfg.Capacity),
		data:    make([]byte, cfg.Capacity*cfg.Size),
	}, nil
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
	}
	c.tick[i] = tick
	copy(c.data[int(i)*c.size:], r.state)
}

// clear empties the mirror for a new epoch.
func (c *Client) clear(epoch uint8) {
	c.stats.Divergences++
	clear(c.present)
	clear(c.seq)
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
