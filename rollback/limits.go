package rollback

import "math"

// Limits on ring geometry.
const (
	// MaxCapacity is the largest ring capacity, 2^20 snapshots.
	MaxCapacity = 1 << 20
	// MaxSize is the largest state size, 2^30 bytes (1 GiB).
	MaxSize = 1 << 30
	// MaxTotal is the largest backing allocation a ring makes,
	// size × (capacity+1) bytes: 2^32 bytes (4 GiB) on 64-bit platforms,
	// 2^30 on 32-bit ones. Larger rings are refused with ErrSize rather
	// than attempted.
	MaxTotal = 1 << (30 + 2*(^uint(0)>>63))
)

// checkGeometry validates a capacity and a state size and returns the
// capacity's index mask.
func checkGeometry(capacity int, size uint64) (mask int, err error) {
	if capacity < 1 || capacity > MaxCapacity || capacity&(capacity-1) != 0 {
		return 0, ErrCapacity
	}
	if size < 1 || size > MaxSize {
		return 0, ErrSize
	}
	// size ≤ 2^30 and capacity+1 ≤ 2^20+1, so the product fits in uint64.
	if total := size * uint64(capacity+1); total > MaxTotal || total > math.MaxInt {
		return 0, ErrSize
	}
	return capacity - 1, nil
}
