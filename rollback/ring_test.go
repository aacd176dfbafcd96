package rollback

import (
	"testing"

	"github.com/stretchr/testify/require"
)

type smallState struct {
	Frame int32
	X, Y  int16
	HP    [4]uint8
}

func TestRingBasics(t *testing.T) {
	r, err := New[smallState](4)
	require.NoError(t, err)
	require.Equal(t, 4, r.Capacity())
	require.Equal(t, 0, r.Depth())
	_, err = r.Peek(0)
	require.ErrorIs(t, err, ErrDepth)

	for f := range int32(6) {
		r.Live().Frame = f
		r.Commit()
	}
	require.Equal(t, 4, r.Depth())
	for n := range 4 {
		p, err := r.Peek(n)
		require.NoError(t, err)
		require.Equal(t, int32(5-n), p.Frame)
	}
	r.Live().Frame = 99
	require.NoError(t, r.Rollback(2))
	require.Equal(t, int32(3), r.Live().Frame)
	require.Equal(t, 2, r.Depth())
	p, err := r.Peek(0)
	require.NoError(t, err)
	require.Equal(t, *p, *r.Live())
	require.Equal(t, r.Checksum(), Checksum(BytesOf(p)))
}
