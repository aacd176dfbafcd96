package codec

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
	}{{-1, 4}, {0, 4}, {126, 4}, {127, 5}, {600, 5}, {math.MaxInt32, 8}, {math.MinInt32, 8}, {-2, 8}} {
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
}

func TestInputAckAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	m := InputAck{Seq: 1, Ack: 100000}
	buf := make([]byte, 0, MaxPacket)
	require.Zero(t, allocs.Total(100, func() {
		b := m.Append(buf[:0])
		_, _, _ = ParseInputAck(b)
		_, _, _ = ParseInputAck(b[:4])
	}))
}

func FuzzParseInputAck(f *testing.F) { fuzzParse(f, TypeInputAck) }
