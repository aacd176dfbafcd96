package wire

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
)

func TestQuality(t *testing.T) {
	for _, m := range []QualityReport{
		{Seq: 1, FrameAdvantage: 0, Ping: 0},
		{Seq: 2, FrameAdvantage: -1, Ping: 1},
		{Seq: 3, FrameAdvantage: 3, Ping: 1 << 40},
		{Seq: 4, FrameAdvantage: math.MinInt32, Ping: math.MaxUint64},
		{Seq: 5, FrameAdvantage: math.MaxInt32, Ping: 127},
	} {
		b := m.Append(nil)
		require.Len(t, b, m.Len())
		got, n, err := ParseQualityReport(b)
		require.NoError(t, err)
		require.Equal(t, len(b), n)
		require.Equal(t, m, got)

		r := QualityReply{Seq: m.Seq, Pong: m.Ping}
		b = r.Append(nil)
		require.Len(t, b, r.Len())
		gotR, n, err := ParseQualityReply(b)
		require.NoError(t, err)
		require.Equal(t, len(b), n)
		require.Equal(t, r, gotR)
	}
	require.Equal(t, []byte{0x15, 1, 0, 5, 0x80, 0x01}, (&QualityReport{Seq: 1, FrameAdvantage: -3, Ping: 128}).Append(nil))
	// Frame advantage beyond 32 bits.
	_, _, err := ParseQualityReport(append([]byte{0x15, 1, 0}, appendUvarintRaw(nil, 1<<33)...))
	require.ErrorIs(t, err, ErrMalformed)
}

func TestQualityAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	m := QualityReport{Seq: 1, FrameAdvantage: -2, Ping: 1 << 50}
	r := QualityReply{Seq: 1, Pong: 1 << 50}
	buf := make([]byte, 0, MaxPacket)
	allocs.RequireZero(t, 100, func() {
		b := m.Append(buf[:0])
		_, _, _ = ParseQualityReport(b)
		_, _, _ = ParseQualityReport(b[:6])
		b = r.Append(buf[:0])
		_, _, _ = ParseQualityReply(b)
		_, _, _ = ParseQualityReply(b[:6])
	})
}

func FuzzParseQualityReport(f *testing.F) { fuzzParse(f, TypeQualityReport) }
func FuzzParseQualityReply(f *testing.F)  { fuzzParse(f, TypeQualityReply) }
