package entity

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPositionsAgreesWithAMap(t *testing.T) {
	var m positions
	want := map[uint32]int32{}
	r := uint64(7)
	for step := range 200000 {
		r ^= r << 13
		r ^= r >> 7
		r ^= r << 17
		idx := uint32(r % 500)
		switch r >> 60 % 3 {
		case 0:
			m.set(idx, int32(step))
			want[idx] = int32(step)
		case 1:
			m.del(idx)
			delete(want, idx)
		}
		got := m.get(idx)
		if v, ok := want[idx]; ok {
			require.Equal(t, v, got)
		} else {
			require.Equal(t, int32(-1), got)
		}
		require.Equal(t, len(want), m.count)
	}
	for k, v := range want {
		require.Equal(t, v, m.get(k))
	}
}
