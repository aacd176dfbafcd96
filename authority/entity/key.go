package entity

// Key names an occupant of an entity table: its slot index and the
// generation the slot had when the occupant was spawned.
type Key struct {
	Index uint32
	Gen   uint16
}

// Slot is one entry of a game's entity table. It holds no pointer, so a
// game keeps an array of slots in its state (beside an array of its
// entities, indexed alike) and copies it by value.
type Slot struct {
	// Gen is the generation of the slot's occupant, or of its next one
	// when the slot is free. It bumps when the occupant is despawned.
	Gen uint16
	// Live says whether the slot holds an occupant.
	Live bool
	// next, in a table's first slot, is where Spawn starts looking:
	// every slot before it is live (as Spawn and Despawn left them). It
	// is part of the table, so a copy of the table spawns what the
	// original would; a zero table starts at its first slot.
	next uint32
}

// Spawn takes the lowest free slot and returns its key; false when every
// slot is live. It starts looking where the last Spawn stopped, or at a
// slot despawned since (the table's first slot keeps where), so filling a
// table reads each slot once. A table whose slots the game writes itself
// stays safe: Spawn never takes a live slot, and says false only after
// reading every slot, but one freed by hand below where Spawn looks is
// taken only when nothing above it is free.
func Spawn(slots []Slot) (Key, bool) {
	if len(slots) == 0 {
		return Key{}, false
	}
	n := len(slots)
	start := int(min(slots[0].next, uint32(n)))
	for k := range n {
		i := start + k
		if i >= n {
			i -= n // slots freed by hand, below start
		}
		if !slots[i].Live {
			slots[i].Live = true
			slots[0].next = uint32(i + 1)
			return Key{Index: uint32(i), Gen: slots[i].Gen}, true
		}
	}
	slots[0].next = uint32(len(slots))
	return Key{}, false
}

// Despawn frees the slot k names and bumps its generation, so k (and
// every copy of it) stops naming anything at once. It returns false, and
// changes nothing, when k is stale: its slot is free or holds a later
// occupant.
//
// The generation is 16 bits: it wraps after 65,536 despawns of one slot,
// and a key kept across exactly that many reads as live again, naming
// the new occupant. Nothing can detect that wrap; a game that holds keys
// that long must check what they name.
func Despawn(slots []Slot, k Key) bool {
	if !Live(slots, k) {
		return false
	}
	s := &slots[k.Index]
	s.Live = false
	s.Gen++
	slots[0].next = min(slots[0].next, k.Index)
	return true
}

// Live reports whether k names the current occupant of its slot.
func Live(slots []Slot, k Key) bool {
	return int(k.Index) < len(slots) && slots[k.Index].Live && slots[k.Index].Gen == k.Gen
}

// mix is a key's term in a set digest: the SplitMix64 finalizer of
// index<<16 | generation. A set's digest is the sum of its keys' terms,
// modulo 2^64: independent of order, updated in O(1) as keys enter and
// leave, and (unlike an XOR) changed by a key counted twice. Key 0 has a
// term other than 0, so holding it shows.
func mix(k Key) uint64 {
	z := uint64(k.Index)<<16 | uint64(k.Gen)
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
