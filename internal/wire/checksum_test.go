package wire

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
)

func TestChecksum(t *testing.T) {
	for _, tc := range []struct {
		m   Checksum
		len int
	}{
		{Checksum{Seq: 1, Frame: -1, Checksum: 0x01020304}, 3 + 1 + 4},
		{Checksum{Seq: 1, Frame: 126, Checksum: 7}, 3 + 1 + 4},
		{Checksum{Seq: 1, Frame: 127, Checksum: 7}, 3 + 2 + 4},
		{Checksum{Seq: 1, Frame: math.MaxInt32, Checksum: 7}, 3 + 5 + 4},
		{Checksum{Seq: 1, Frame: math.MinInt32, Checksum: 7}, 3 + 5 + 4},
	} {
		b := tc.m.Append(nil)
		require.Len(t, b, tc.len)
		require.Equal(t, tc.len, tc.m.Len())
		got, n, err := ParseChecksum(b)
		require.NoError(t, err)
		require.Equal(t, tc.len, n)
		require.Equal(t, tc.m, got)
	}
	require.Equal(t, []byte{0x18, 1, 0, 0, 4, 3, 2, 1}, (&Checksum{Seq: 1, Frame: -1, Checksum: 0x01020304}).Append(nil))
	// A frame field beyond 32 bits.
	_, _, err := ParseChecksum([]byte{0x18, 1, 0, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0, 0})
	require.ErrorIs(t, err, ErrMalformed)
}

func TestChecksumAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	m := Checksum{Seq: 1, Frame: 100000, Checksum: 0xfeedface}
	buf := make([]byte, 0, MaxPacket)
	allocs.RequireZero(t, 100, func() {
		b := m.Append(buf[:0])
		_, _, _ = ParseChecksum(b)
		_, _, _ = ParseChecksum(b[:5])
	})
}

func FuzzParseChecksum(f *testing.F) { fuzzParse(f, TypeChecksum) }
