package wire

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
)

func TestInputAck(t *testing.T) {
	for _, tc := range []struct {
		ack int32
		len int
	}{{-1, 4}, {0, 4}, {62, 4}, {63, 5}, {600, 5}, {math.MaxInt32, 8}, {math.MinInt32, 8}, {-2, 8}} {
		m := InputAck{Seq: 9, Ack: tc.ack}
		b := m.Append(nil)
		require.Len(t, b, tc.len, "ack %d", tc.ack)
		require.Equal(t, tc.len, m.Len())
		got, n, err := ParseInputAck(b)
		require.NoError(t, err)
		require.Equal(t, tc.len, n)
		require.Equal(t, m, got)
	}
	require.Equal(t, []byte{0x14, 9, 0, 0}, (&InputAck{Seq: 9, Ack: -1}).Append(nil))
	_, _, err := ParseInputAck([]byte{0x14, 9, 0, 0x80, 0})
	require.ErrorIs(t, err, ErrMalformed, "over-long varint")
	// The checksum is there when its bit says so, and only then: bytes
	// appended to an InputAck (a spoofed copy) are malformed, not a
	// checksum.
	withSum := (&InputAck{Seq: 9, Ack: 40, HasChecksum: true, CheckFrame: 30, Checksum: 7}).Append(nil)
	got, _, err := ParseInputAck(withSum)
	require.NoError(t, err)
	require.True(t, got.HasChecksum)
	plain := (&InputAck{Seq: 9, Ack: 40}).Append(nil)
	_, _, err = ParseInputAck(append(plain, withSum[len(plain):]...))
	require.ErrorIs(t, err, ErrMalformed, "bytes left over without the flag")
}

func TestInputAckAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	m := InputAck{Seq: 1, Ack: 100000}
	buf := make([]byte, 0, MaxPacket)
	allocs.RequireZero(t, 100, func() {
		b := m.Append(buf[:0])
		_, _, _ = ParseInputAck(b)
		_, _, _ = ParseInputAck(b[:4])
	})
}

func FuzzParseInputAck(f *testing.F) { fuzzParse(f, TypeInputAck) }
