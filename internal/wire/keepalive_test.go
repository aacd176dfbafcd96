package wire

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
)

func TestKeepAlive(t *testing.T) {
	m := KeepAlive{Seq: 0xbeef}
	b := m.Append(nil)
	require.Equal(t, []byte{0x17, 0xef, 0xbe}, b)
	require.Len(t, b, m.Len())
	got, n, err := ParseKeepAlive(b)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	require.Equal(t, m, got)
}

func TestKeepAliveAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	m := KeepAlive{Seq: 1}
	buf := make([]byte, 0, MaxPacket)
	allocs.RequireZero(t, 100, func() {
		_, _, _ = ParseKeepAlive(m.Append(buf[:0]))
		_, _, _ = ParseKeepAlive(buf[:1])
	})
}

func FuzzParseKeepAlive(f *testing.F) { fuzzParse(f, TypeKeepAlive) }
