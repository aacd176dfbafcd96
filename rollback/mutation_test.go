package rollback

// Tests written against the mutants gremlins left alive in this package;
// see torture/MUTATION.md.

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMutationGeometryBounds checks the geometry limits at their exact
// edges through checkGeometry, which allocates nothing (a ring of MaxSize
// would be 2 GiB).
func TestMutationGeometryBounds(t *testing.T) {
	if ^uint(0)>>63 == 1 { // 64-bit platforms
		require.Equal(t, uint64(1<<32), uint64(MaxTotal))
	} else {
		require.Equal(t, uint64(1<<30), uint64(MaxTotal))
	}
	if uint64(MaxTotal) >= 2*MaxSize { // 64-bit platforms
		mask, err := checkGeometry(1, MaxSize)
		require.NoError(t, err, "the largest state size is allowed")
		require.Zero(t, mask)
	}
	_, err := checkGeometry(1, MaxSize+1)
	require.ErrorIs(t, err, ErrSize)
	_, err = checkGeometry(1, 0)
	require.ErrorIs(t, err, ErrSize)
	mask, err := checkGeometry(1, 1)
	require.NoError(t, err)
	require.Zero(t, mask)

	mask, err = checkGeometry(MaxCapacity, 1)
	require.NoError(t, err)
	require.Equal(t, MaxCapacity-1, mask)

	// size × (capacity+1) just under and just over MaxTotal.
	size := uint64(MaxTotal / 5)
	mask, err = checkGeometry(4, size)
	require.NoError(t, err)
	require.Equal(t, 3, mask)
	_, err = checkGeometry(4, size+1)
	require.ErrorIs(t, err, ErrSize)
}
