package rollback

// Tests written against the mutants gremlins left alive in this package;
// see torture/MUTATION.md.

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMutationGeometryBounds checks the geometry limits at their exact
// edges through checkGeometry, which allocates nothing (a ring of maxSize
// would be 2 GiB).
func TestMutationGeometryBounds(t *testing.T) {
	if ^uint(0)>>63 == 1 { // 64-bit platforms
		require.Equal(t, uint64(1<<32), uint64(maxTotal))
	} else {
		require.Equal(t, uint64(1<<30), uint64(maxTotal))
	}
	if uint64(maxTotal) >= 2*maxSize { // 64-bit platforms
		mask, err := checkGeometry(1, maxSize)
		require.NoError(t, err, "the largest state size is allowed")
		require.Zero(t, mask)
	}
	_, err := checkGeometry(1, maxSize+1)
	require.ErrorIs(t, err, errSize)
	_, err = checkGeometry(1, 0)
	require.ErrorIs(t, err, errSize)
	mask, err := checkGeometry(1, 1)
	require.NoError(t, err)
	require.Zero(t, mask)

	mask, err = checkGeometry(maxCapacity, 1)
	require.NoError(t, err)
	require.Equal(t, maxCapacity-1, mask)

	// size × (capacity+1) just under and just over maxTotal.
	size := uint64(maxTotal / 5)
	mask, err = checkGeometry(4, size)
	require.NoError(t, err)
	require.Equal(t, 3, mask)
	_, err = checkGeometry(4, size+1)
	require.ErrorIs(t, err, errSize)
}
