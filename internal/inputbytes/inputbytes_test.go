package inputbytes

import (
	"reflect"
	"testing"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/stretchr/testify/require"
)

type in struct {
	A uint8
	B bool
	C [2]bool
	D uint16
	_ [2]byte
}

func TestRoundTripAndBools(t *testing.T) {
	c, err := New[in]()
	require.NoError(t, err)
	require.Equal(t, 8, c.Size)
	require.Equal(t, []int{1, 2, 3}, BoolOffsets(reflect.TypeFor[in](), 0, nil))
	v := in{A: 7, B: true, C: [2]bool{false, true}, D: 0x1234}
	b := c.Append(nil, &v)
	require.Len(t, b, 8)
	var got in
	require.NoError(t, c.Decode(b, &got))
	require.Equal(t, v, got)
	for _, o := range []int{1, 2, 3} {
		bad := append([]byte(nil), b...)
		bad[o] = 2
		got = in{}
		require.ErrorIs(t, c.Decode(bad, &got), ErrBool, "offset %d", o)
		require.Equal(t, in{}, got, "nothing stored")
	}
	_, err = New[struct{ P *int }]()
	require.Error(t, err)
}

func TestAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	c, _ := New[in]()
	v := in{A: 1}
	buf := make([]byte, 0, 8)
	var got in
	allocs.RequireZero(t, 100, func() {
		buf = c.Append(buf[:0], &v)
		_ = c.Decode(buf, &got)
	})
}

// FuzzDecode: any bytes either decode to a value whose bytes are them, or
// are refused with ErrBool; never a panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{1, 0, 1, 0, 4, 5, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, _ := New[in]()
		if len(b) < c.Size {
			return
		}
		var got in
		if err := c.Decode(b, &got); err != nil {
			require.ErrorIs(t, err, ErrBool)
			return
		}
		require.Equal(t, b[:c.Size], c.Append(nil, &got))
	})
}

// TestRefuses: a type with a bool refuses some bytes, and says so; one
// without takes every pattern (the P2P session skips its check then).
func TestRefuses(t *testing.T) {
	c, err := New[in]()
	require.NoError(t, err)
	require.True(t, c.Refuses())
	var v in
	require.ErrorIs(t, c.Decode([]byte{0, 2, 0, 0, 0, 0, 0, 0}, &v), ErrBool)
	u, err := New[uint16]()
	require.NoError(t, err)
	require.False(t, u.Refuses())
	var x uint16
	for b := range 256 {
		require.NoError(t, u.Decode([]byte{byte(b), byte(255 - b)}, &x))
	}
}
