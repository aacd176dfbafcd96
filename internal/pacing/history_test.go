package pacing_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/pacing"
)

func TestHistoryConfig(t *testing.T) {
	for _, c := range []pacing.HistoryConfig{{Length: 1}, {Length: -1}, {Length: 4097}} {
		_, err := pacing.NewHistory[float64](c)
		require.ErrorIs(t, err, rollnet.ErrConfig, "%+v", c)
	}
}

// blend draws what At says for t.
func blend(t *testing.T, h *pacing.History[float64], at float64) float64 {
	t.Helper()
	a, b, w, ok := h.At(at)
	require.True(t, ok, "at %v", at)
	return *a + (*b-*a)*w
}

// TestHistory: blending between kept frames, bridging a frame jumped
// over, holding past the newest, a late state replacing a coasted one,
// frames too old ignored, negative frames and wrap-around.
func TestHistory(t *testing.T) {
	h, err := pacing.NewHistory[float64](pacing.HistoryConfig{Length: 4})
	require.NoError(t, err)
	_, _, _, ok := h.At(0)
	require.False(t, ok)

	for _, f := range []int32{-2, -1, 0, 2} { // 1 jumped over
		x := float64(f) * 10
		h.Put(f, &x)
	}
	require.Equal(t, -5.0, blend(t, h, -0.5))
	require.Equal(t, 5.0, blend(t, h, 0.5), "1 is bridged")
	require.Equal(t, 15.0, blend(t, h, 1.5))
	require.Equal(t, 20.0, blend(t, h, 7), "past the newest: held")
	require.Equal(t, -10.0, blend(t, h, -9), "before the oldest kept: held")
	_, ok = h.Get(1)
	require.False(t, ok)

	x := 11.0 // a late state for 1 fills the gap
	h.Put(1, &x)
	require.Equal(t, 11.0, blend(t, h, 1))
	x = 99
	h.Put(-2, &x) // too old: four frames back from 2 is -1
	_, ok = h.Get(-2)
	require.False(t, ok)

	x = 30
	h.Put(3, &x) // -1 falls out
	_, ok = h.Get(-1)
	require.False(t, ok)
	require.Equal(t, 25.0, blend(t, h, 2.5))

	x = 1000
	h.Put(100, &x) // far ahead: the history starts again
	nw, _ := h.Newest()
	require.Equal(t, int32(100), nw)
	require.Equal(t, 1000.0, blend(t, h, 50))
	_, _, _, ok = h.At(math.NaN())
	require.False(t, ok)

	x = 7
	h.Put(math.MaxInt32, &x)
	h.Put(math.MinInt32, &x)
	require.Equal(t, 7.0, blend(t, h, math.Inf(1)))

	h.Reset()
	_, _, _, ok = h.At(0)
	require.False(t, ok)
}
