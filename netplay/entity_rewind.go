package netplay

import (
	"math"
	"time"

	"github.com/rollnet/rollnet/authority/entity"
)

// Lag compensation in the entity mode (EntityConfig.MaxRewind). A client
// draws the entities it does not control at its render time T (a playout
// clock over the host's ticks), so a shot aimed at what it sees misses on
// the host's present. Each input carries the T the client drew at before
// making it (its sight, in 256ths of a tick); the host keeps every
// entity's encoding of its last MaxRewind of ticks, and Match.Seen, during
// the host's simulate, decodes an entity as a player saw it: the
// encodings of the ticks around its sight, blended as the client's
// playout blends them (Decode at T's fraction), so a hit is judged where
// the shooter saw the target. The sight is bounded like the whole-world
// mode's (package authority): one older than MaxRewind behind the frame
// acted at is moved up to it, one naming a tick never sent down to the
// newest sent, and a render time that jumps against the client's
// previous input's is counted.

// sightJump is how far, in 256ths of a tick, a client's render time may
// move off one tick an input before its sight counts as a jump: a render
// clock steered by rate (at most 10%) moves about a tick a tick.
const sightJump = 2 * 256

// entityRewind is the host's history of encodings and the sights of the
// frame being simulated; zero (off) without MaxRewind.
type entityRewind[S any] struct {
	bound      int64 // MaxRewind in 256ths of a tick; 0: off
	size, cap  int
	n          int      // ticks held
	enc        []byte   // n × cap × size: the encodings, by tick % n
	key        []uint32 // n × cap: the slot's generation + 1 when live, 0 when not
	ticks      []uint32 // by tick % n: the tick held there (0: none)
	slots      []entity.Slot
	row        int     // the row being written (tick % n)
	sights     []int64 // by slot: the sight of the input simulated, noSight for none
	simulating bool
	seen       S // the world Seen decodes into
}

func (r *entityRewind[S]) on() bool { return r.bound > 0 }

func (r *entityRewind[S]) init(capacity, size, players int, bound time.Duration, rate int) {
	frames := int64(math.Ceil(bound.Seconds() * float64(rate)))
	r.bound = min(int64(bound.Seconds()*float64(rate)*256), frames*256)
	r.size, r.cap, r.n = size, capacity, int(frames)+3
	r.enc = make([]byte, r.n*capacity*size)
	r.key = make([]uint32, r.n*capacity)
	r.ticks = make([]uint32, r.n)
	r.sights = make([]int64, players)
	for i := range r.sights {
		r.sights[i] = noSight
	}
}

// start begins the history of tick (the table slots), before the entity
// host encodes it.
func (r *entityRewind[S]) start(tick uint32, slots []entity.Slot) {
	if !r.on() {
		return
	}
	r.row = int(tick % uint32(r.n))
	r.ticks[r.row] = tick
	r.slots = slots
	clear(r.key[r.row*r.cap : (r.row+1)*r.cap])
}

// keep holds the encoding of the entity at index of the tick started.
func (r *entityRewind[S]) keep(enc []byte, index int) {
	if !r.on() {
		return
	}
	i := r.row*r.cap + index
	copy(r.enc[i*r.size:(i+1)*r.size], enc)
	r.key[i] = uint32(r.slots[index].Gen) + 1
}

// at is the entity at index as of tick: its key (0: not live) and its
// encoding; ok is false when the tick is not held.
func (r *entityRewind[S]) at(tick uint32, index int) (key uint32, enc []byte, ok bool) {
	row := int(tick % uint32(r.n))
	if r.ticks[row] != tick || tick == 0 {
		return 0, nil, false
	}
	i := row*r.cap + index
	return r.key[i], r.enc[i*r.size : (i+1)*r.size : (i+1)*r.size], true
}

// sightOf bounds the sight seen of client p's input applied this frame.
func (d *entityHost[S, I]) sightOf(p *entityPeer[I], seen int64) int64 {
	if seen < 0 {
		return noSight
	}
	// The newest the client may have drawn: a tick sent it, not past the
	// present.
	if newest := int64(min(p.sentUpTo, d.now)) * 256; seen > newest {
		d.st.tooNew++
		if p.sentUpTo == 0 {
			return noSight
		}
		seen = newest
	}
	if p.lastSeq != 0 && p.applied > p.lastSeq {
		moved := seen - p.lastSeen - int64(p.applied-p.lastSeq)*256
		if moved > sightJump || moved < -sightJump {
			d.st.jumps++
		}
	}
	p.lastSeq, p.lastSeen = p.applied, seen
	if oldest := int64(d.now)*256 - d.lag.bound; seen < oldest {
		d.st.tooOld++
		seen = oldest
	}
	return seen
}

// seen decodes the entity at index as player saw it into the rewind's
// world (Match.Seen).
func (d *entityHost[S, I]) seen(player, index int) (*S, bool) {
	r := &d.lag
	if !r.simulating || player < 0 || player >= len(r.sights) || index < 0 || index >= r.cap {
		return nil, false
	}
	t := r.sights[player]
	if t < 0 {
		return nil, false
	}
	a, frac := uint32(t>>8), t&255
	ka, ea, ok := r.at(a, index)
	if !ok {
		return nil, false
	}
	eb, alpha := ea, float32(0)
	if frac > 0 {
		if kb, e, ok := r.at(a+1, index); ok && kb != 0 {
			switch {
			case kb == ka:
				eb, alpha = e, float32(frac)/256
			case ka == 0: // it entered after a: a client holds its first state
				ka, ea, eb = kb, e, e
			}
		}
	}
	if ka == 0 {
		return nil, false
	}
	d.ec.Slots(&r.seen)[index] = entity.Slot{Gen: uint16(ka - 1), Live: true}
	d.ec.Decode(&r.seen, index, ea, eb, alpha)
	d.st.rewinds++
	return &r.seen, true
}

// Seen is lag compensation in the entity mode (EntityConfig.MaxRewind):
// during the host's simulate, the world holding the entity at index as
// the player in slot player saw it when it made the input being
// simulated: the host's encodings of the ticks around the render time the
// client drew at, decoded as its playout blends them (the world's other
// entities are left over from earlier calls: read index's alone). Test a
// shot against it, and against State's present when ok is false: the
// player is the host's own, sent no sight, its input was held for a lost
// one, or the entity was not live then; and outside an entity host's
// simulate, or without MaxRewind. A sight older than MaxRewind behind the
// frame is moved up to it (Stats.SightsTooOld), one naming a tick never
// sent down to the newest sent (SightsTooNew). It allocates nothing and
// costs one Decode.
func (m *Match[S, I]) Seen(player, index int) (*S, bool) {
	// An assertion to an interface, not to *entityHost: a concrete type
	// here would put the entity host in Match's generic dictionary and
	// link it into every game (the browser pong grew 85 KB gzipped).
	if d, ok := m.d.(interface {
		seen(player, index int) (*S, bool)
	}); ok {
		return d.seen(player, index)
	}
	return nil, false
}
