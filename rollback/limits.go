package rollback

import "math"

// Limits on ring geometry.
const (
	// maxCapacity is the largest ring capacity, 2^20 snapshots.
	maxCapacity = 1 << 20
	// maxSize is the largest state size, 2^30 bytes (1 GiB).
	maxSize = 1 << 30
	// maxTotal is the largest backing allocation a ring makes,
	// size × (capacity+1) bytes: 2^32 bytes (4 GiB) on 64-bit platforms,
	// 2^30 on 32-bit ones. Larger rings are refused with errSize rather
	// than attempted.
	maxTotal = 1 << (30 + 2*(^uint(0)>>63))
)

// checkGeometry validates a capacity and a state size and returns the
// capacity's index mask.
func checkGeometry(capacity int, size uint64) (mask int, err error) {
	if capacity < 1 || capacity > maxCapacity || capacity&(capacity-1) != 0 {
		return 0, errCapacity
	}
	if size < 1 || size > maxSize {
		return 0, errSize
	}
	// size ≤ 2^30 and capacity+1 ≤ 2^20+1, so the product fits in uint64.
	if total := size * uint64(capacity+1); total > maxTotal || total > math.MaxInt {
		return 0, errSize
	}
	return capacity - 1, nil
}
