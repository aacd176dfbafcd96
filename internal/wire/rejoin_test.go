package wire

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
)

func TestRejoin(t *testing.T) {
	m := Rejoin{Seq: 0x0102, Kind: RejoinAt, Players: 0b1010, Frame: -7, Match: 0x1122334455667788,
		Secret: [SecretLen]byte{0: 9, 15: 10}, Reason: 3, Frozen: 1<<63 | 5}
	b := m.Append(nil)
	require.Len(t, b, m.Len())
	require.Equal(t, byte(Version<<4|byte(TypeRejoin)), b[0])
	got, n, err := ParseRejoin(b)
	require.NoError(t, err)
	require.Equal(t, len(b), n)
	require.Equal(t, m, got)
	for i := range b {
		_, _, err := ParseRejoin(b[:i])
		require.Error(t, err, "prefix of %d bytes", i)
	}
	_, _, err = ParseRejoin(append(b, 0))
	require.ErrorIs(t, err, ErrMalformed, "trailing byte")
	for _, k := range []byte{0, byte(RejoinAtAck) + 1, 0xff} {
		bad := append([]byte(nil), b...)
		bad[HeaderLen] = k
		_, _, err = ParseRejoin(bad)
		require.ErrorIs(t, err, ErrMalformed, "kind %d", k)
	}
}

func TestRejoinAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	m := Rejoin{Seq: 1, Kind: RejoinRequest, Match: 5}
	buf := make([]byte, 0, MaxPacket)
	allocs.RequireZero(t, 100, func() {
		_, _, _ = ParseRejoin(m.Append(buf[:0]))
		_, _, _ = ParseRejoin(buf[:4])
	})
}

func FuzzParseRejoin(f *testing.F) { fuzzParse(f, TypeRejoin) }
