package rollback

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNewCapacity(t *testing.T) {
	for _, c := range []int{0, -1, -2, 3, 6, 12, 1<<20 - 1, 1<<20 + 1, 1 << 21, math.MaxInt, math.MinInt} {
		r, err := New[uint32](c)
		require.ErrorIs(t, err, errCapacity, "capacity %d", c)
		require.Nil(t, r)
		b, err := NewBytes(c, 16)
		require.ErrorIs(t, err, errCapacity, "capacity %d", c)
		require.Nil(t, b)
	}
	for _, c := range []int{1, 2, 4, 1024, 1 << 20} {
		r, err := New[uint8](c)
		require.NoError(t, err, "capacity %d", c)
		require.Equal(t, c, r.Capacity())
		require.Equal(t, 0, r.Depth())
		b, err := NewBytes(c, 1)
		require.NoError(t, err, "capacity %d", c)
		require.Equal(t, c, b.Capacity())
	}
}

func TestNewSize(t *testing.T) {
	for _, s := range []int{0, -1, maxSize + 1, math.MaxInt, math.MinInt} {
		b, err := NewBytes(1, s)
		require.ErrorIs(t, err, errSize, "size %d", s)
		require.Nil(t, b)
	}
	// Total too large: refused before any allocation is attempted.
	b, err := NewBytes(maxCapacity, maxSize)
	require.ErrorIs(t, err, errSize)
	require.Nil(t, b)
	b, err = NewBytes(4, maxTotal/4)
	require.ErrorIs(t, err, errSize, "5 slots of a quarter of maxTotal")
	require.Nil(t, b)

	r1, err := New[[maxSize + 1]byte](1)
	require.ErrorIs(t, err, errSize)
	require.Nil(t, r1)
	r2, err := New[[maxSize]byte](maxCapacity)
	require.ErrorIs(t, err, errSize)
	require.Nil(t, r2)

	// A bad capacity is reported before a bad size.
	_, err = NewBytes(3, 0)
	require.ErrorIs(t, err, errCapacity)
}

func TestNewStateType(t *testing.T) {
	r, err := New[string](4)
	require.ErrorIs(t, err, ErrStateType)
	require.Nil(t, r)
	var te *typeError
	require.True(t, errors.As(err, &te))
	require.Equal(t, reflect.TypeFor[string](), te.Type)
	require.EqualError(t, err, "rollback: string: string is not allowed")

	// The type is checked before the capacity.
	_, err = New[int](3)
	require.ErrorIs(t, err, ErrStateType)
}

// depthErrors checks every depth-indexed method of both rings for ErrDepth at
// the given out-of-range n, and that nothing changed.
func TestDepthErrors(t *testing.T) {
	r, err := New[[4]uint16](4)
	require.NoError(t, err)
	b, err := NewBytes(4, 8)
	require.NoError(t, err)

	check := func(depth int) {
		t.Helper()
		for _, n := range []int{-1, -2, depth, depth + 1, 4, 5, math.MaxInt, math.MinInt} {
			liveR, liveB := *r.Live(), string(b.Live())

			p, err := r.Peek(n)
			require.ErrorIs(t, err, ErrDepth, "Peek(%d) at depth %d", n, depth)
			require.Nil(t, p)
			c, err := r.ChecksumAt(n)
			require.ErrorIs(t, err, ErrDepth)
			require.Zero(t, c)
			require.ErrorIs(t, r.Rollback(n), ErrDepth)
			require.Equal(t, depth, r.Depth())
			require.Equal(t, liveR, *r.Live())

			v, err := b.Peek(n)
			require.ErrorIs(t, err, ErrDepth, "Peek(%d) at depth %d", n, depth)
			require.Nil(t, v)
			c, err = b.ChecksumAt(n)
			require.ErrorIs(t, err, ErrDepth)
			require.Zero(t, c)
			require.ErrorIs(t, b.Rollback(n), ErrDepth)
			require.Equal(t, depth, b.Depth())
			require.Equal(t, liveB, string(b.Live()))
		}
	}
	check(0)
	for d := 1; d <= 6; d++ {
		r.Live()[0] = uint16(d)
		b.Live()[0] = byte(d)
		r.Commit()
		b.Commit()
		r.Live()[1] = 7 // live edits that a failed Rollback must not undo
		b.Live()[1] = 7
		check(min(d, 4))
	}
	r.Reset()
	b.Reset()
	check(0)
	require.Equal(t, uint16(7), r.Live()[1], "Reset kept the live state")
	require.Equal(t, byte(7), b.Live()[1], "Reset kept the live state")
}

func TestRollbackZeroUndoesLiveEdits(t *testing.T) {
	r, err := New[[2]int32](2)
	require.NoError(t, err)
	r.Live()[0] = 5
	r.Commit()
	r.Live()[0] = 6
	require.NoError(t, r.Rollback(0))
	require.Equal(t, int32(5), r.Live()[0])
	require.Equal(t, 1, r.Depth())
}

func TestPeekAliasesSlot(t *testing.T) {
	r, err := New[[2]int32](4)
	require.NoError(t, err)
	r.Live()[0] = 1
	r.Commit()
	p, err := r.Peek(0)
	require.NoError(t, err)
	require.NotSame(t, r.Live(), p)
	for i := int32(2); i <= 4; i++ {
		r.Live()[0] = i
		r.Commit()
		require.Equal(t, int32(1), p[0], "still held, unchanged")
	}
	q, err := r.Peek(3)
	require.NoError(t, err)
	require.Same(t, p, q)
	r.Live()[0] = 5
	r.Commit() // overwrites p's slot, the oldest
	require.Equal(t, int32(5), p[0])

	// Writing through Peek changes the commit.
	p0, err := r.Peek(0)
	require.NoError(t, err)
	p0[1] = 42
	require.NoError(t, r.Rollback(0))
	require.Equal(t, int32(42), r.Live()[1])

	b, err := NewBytes(2, 3)
	require.NoError(t, err)
	b.Commit()
	v, err := b.Peek(0)
	require.NoError(t, err)
	require.Equal(t, 3, cap(v), "a Peek view cannot be appended into the next slot")
	require.Equal(t, 3, cap(b.Live()))
}

func TestChecksumKnownValue(t *testing.T) {
	// CRC32-C check value from the Castagnoli/iSCSI specification.
	require.Equal(t, uint32(0xe3069283), Checksum([]byte("123456789")))
	require.Equal(t, uint32(0), Checksum(nil))

	r, err := New[[9]byte](1)
	require.NoError(t, err)
	copy(r.Live()[:], "123456789")
	require.Equal(t, uint32(0xe3069283), r.Checksum())
	r.Commit()
	c, err := r.ChecksumAt(0)
	require.NoError(t, err)
	require.Equal(t, uint32(0xe3069283), c)

	// A multi-byte field is checksummed in memory order: little-endian.
	r32, err := New[uint32](1)
	require.NoError(t, err)
	*r32.Live() = 0x04030201
	require.Equal(t, Checksum([]byte{1, 2, 3, 4}), r32.Checksum())
}
