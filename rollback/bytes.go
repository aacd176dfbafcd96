package rollback

import "fmt"

// Bytes is Ring for a state whose size is known only at run time: the
// state is a []byte of fixed length. Create it with NewBytes. A
// Bytes is not safe for concurrent use.
type Bytes struct {
	buf   []byte // live state, then capacity slots, each size bytes
	size  int
	mask  int // capacity - 1
	head  int // slot of the newest commit (meaningful when depth > 0)
	depth int // commits held, in [0, capacity]
}

// NewBytes returns a ring of capacity snapshots of a size-byte state.
// capacity must be a power of two in [1, 2^20], size in [1, 2^30] bytes,
// and size × (capacity+1) at most 4 GiB (1 GiB on 32-bit platforms); else
// the error wraps rollnet.ErrConfig. The live state and the slots are one zeroed allocation.
func NewBytes(capacity, size int) (*Bytes, error) {
	mask, err := checkGeometry(capacity, uint64(size)) // a negative size wraps to > maxSize
	if err != nil {
		return nil, fmt.Errorf("%w: capacity %d, size %d", err, capacity, size)
	}
	return &Bytes{buf: make([]byte, size*(capacity+1)), size: size, mask: mask, head: mask}, nil
}

// slot returns slot i (0-based); its capacity is clipped so that an append
// cannot spill into the next slot.
func (r *Bytes) slot(i int) []byte {
	off := (i + 1) * r.size
	return r.buf[off : off+r.size : off+r.size]
}

// Live returns the live state, the bytes user code mutates. The slice has
// length and capacity the state size and is the same for the ring's whole life.
func (r *Bytes) Live() []byte { return r.buf[:r.size:r.size] }

// Commit copies the live state into the next slot, making it the newest
// commit. When the ring is full the oldest commit is overwritten and Depth
// stays at Capacity.
func (r *Bytes) Commit() {
	r.head = (r.head + 1) & r.mask
	copy(r.slot(r.head), r.buf[:r.size])
	if r.depth <= r.mask {
		r.depth++
	}
}

// Rollback sets the live state to Peek(n) and discards the n newer
// commits; n must be in [0, Depth()), else ErrDepth and nothing changes.
func (r *Bytes) Rollback(n int) error {
	if uint(n) >= uint(r.depth) {
		return ErrDepth
	}
	r.head = (r.head - n) & r.mask
	r.depth -= n
	copy(r.buf[:r.size], r.slot(r.head))
	return nil
}

// Peek returns the n-th most recent commit (0 is the newest), aliasing its
// slot (length and capacity the state size); it stays unchanged until that slot is
// overwritten by a later Commit. n must be in [0, Depth()), else ErrDepth.
func (r *Bytes) Peek(n int) ([]byte, error) {
	if uint(n) >= uint(r.depth) {
		return nil, ErrDepth
	}
	return r.slot((r.head - n) & r.mask), nil
}

// Depth returns the number of commits held, at most Capacity().
func (r *Bytes) Depth() int { return r.depth }

// Capacity returns the number of slots.
func (r *Bytes) Capacity() int { return r.mask + 1 }

// Reset discards every commit (Depth becomes 0). It does not clear memory
// and leaves the live state as it is.
func (r *Bytes) Reset() { r.depth = 0 }

// Checksum returns the CRC32-C of the live state (see Checksum).
func (r *Bytes) Checksum() uint32 { return Checksum(r.buf[:r.size]) }

// ChecksumAt returns the CRC32-C of Peek(n), or ErrDepth.
func (r *Bytes) ChecksumAt(n int) (uint32, error) {
	if uint(n) >= uint(r.depth) {
		return 0, ErrDepth
	}
	return Checksum(r.slot((r.head - n) & r.mask)), nil
}
