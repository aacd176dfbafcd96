package rollback

import (
	"fmt"
	"reflect"
)

// Ring is a fixed ring of snapshots of a state of type T, plus the live
// state user code mutates. Create it with New. A Ring is not safe for
// concurrent use.
type Ring[T any] struct {
	live  *T  // &buf[0]
	slots []T // buf[1:], len capacity; slot i is slots[i]
	mask  int // capacity - 1
	head  int // slot of the newest commit (meaningful when depth > 0)
	depth int // commits held, in [0, capacity]
}

// New returns a ring of capacity snapshots of T. capacity must be a power
// of two in [1, 2^20]; size(T) × (capacity+1) must not exceed 4 GiB (1 GiB
// on 32-bit platforms), else the error wraps rollnet.ErrConfig; T must
// satisfy CheckType, else the error wraps ErrStateType. The live state and every slot
// are one allocation of capacity+1 values of T, all zero; nothing is
// allocated afterwards.
func New[T any](capacity int) (*Ring[T], error) {
	t := reflect.TypeFor[T]()
	if err := CheckType(t); err != nil {
		return nil, err
	}
	mask, err := checkGeometry(capacity, uint64(t.Size()))
	if err != nil {
		return nil, fmt.Errorf("%w: capacity %d, %d-byte %s", err, capacity, t.Size(), t)
	}
	buf := make([]T, capacity+1)
	return &Ring[T]{live: &buf[0], slots: buf[1:], mask: mask, head: mask}, nil
}

// Live returns the live state, the one user code mutates. The pointer is
// the same for the ring's whole life.
func (r *Ring[T]) Live() *T { return r.live }

// Commit copies the live state into the next slot, making it the newest
// commit (Peek(0)). When the ring is full the oldest commit is overwritten
// and Depth stays at Capacity.
func (r *Ring[T]) Commit() {
	r.head = (r.head + 1) & r.mask
	// How to copy is decided per T at compile time (see bulk): an element
	// assignment, which the compiler inlines as vector moves for a small
	// state, or memmove over the byte views for a large one, where the
	// compiler would emit REP MOVSQ.
	if bulk[T]() {
		copy(BytesOf(&r.slots[r.head]), BytesOf(r.live))
	} else {
		r.slots[r.head] = *r.live
	}
	if r.depth <= r.mask {
		r.depth++
	}
}

// Rollback sets the live state to Peek(n) and discards the n newer
// commits: afterwards *Live() == *Peek(0) and Depth() has dropped by n.
// Rollback(0) restores the newest commit (undoes live edits). n must be in
// [0, Depth()), else ErrDepth and nothing changes.
func (r *Ring[T]) Rollback(n int) error {
	if uint(n) >= uint(r.depth) {
		return ErrDepth
	}
	r.head = (r.head - n) & r.mask
	r.depth -= n
	if bulk[T]() { // as in Commit
		copy(BytesOf(r.live), BytesOf(&r.slots[r.head]))
	} else {
		*r.live = r.slots[r.head]
	}
	return nil
}

// Peek returns the n-th most recent commit (0 is the newest), aliasing its
// slot: the pointer stays valid and its value unchanged until that slot is
// overwritten by a later Commit. Writing through it changes the commit. n
// must be in [0, Depth()), else ErrDepth.
func (r *Ring[T]) Peek(n int) (*T, error) {
	if uint(n) >= uint(r.depth) {
		return nil, ErrDepth
	}
	return &r.slots[(r.head-n)&r.mask], nil
}

// Depth returns the number of commits held, at most Capacity().
func (r *Ring[T]) Depth() int { return r.depth }

// Capacity returns the number of slots.
func (r *Ring[T]) Capacity() int { return r.mask + 1 }

// Reset discards every commit (Depth becomes 0). It does not clear memory
// and leaves the live state as it is.
func (r *Ring[T]) Reset() { r.depth = 0 }

// Checksum returns the CRC32-C of the live state's bytes (see Checksum).
// The value depends on the platform's byte order; it is the same on every
// little-endian platform.
func (r *Ring[T]) Checksum() uint32 { return Checksum(BytesOf(r.live)) }

// ChecksumAt returns the CRC32-C of Peek(n)'s bytes, or ErrDepth.
func (r *Ring[T]) ChecksumAt(n int) (uint32, error) {
	if uint(n) >= uint(r.depth) {
		return 0, ErrDepth
	}
	return Checksum(BytesOf(&r.slots[(r.head-n)&r.mask])), nil
}
