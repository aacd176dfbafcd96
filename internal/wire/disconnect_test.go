package wire

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
)

func TestDisconnect(t *testing.T) {
	m := Disconnect{Seq: 0xbeef}
	b := m.Append(nil)
	require.Equal(t, []byte{0x19, 0xef, 0xbe}, b)
	require.Len(t, b, m.Len())
	got, n, err := ParseDisconnect(b)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	require.Equal(t, m, got)
}

func TestDisconnectAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	m := Disconnect{Seq: 1}
	buf := make([]byte, 0, MaxPacket)
	allocs.RequireZero(t, 100, func() {
		_, _, _ = ParseDisconnect(m.Append(buf[:0]))
		_, _, _ = ParseDisconnect(buf[:2])
	})
}

func FuzzParseDisconnect(f *testing.F) { fuzzParse(f, TypeDisconnect) }
