package wire

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
)

func TestSync(t *testing.T) {
	req := SyncRequest{Seq: 0x0102, Nonce: 0x1122334455667788, Protocol: 0x0a0b, Settings: 0xa1a2a3a4a5a6a7a8}
	b := req.Append(nil)
	require.Equal(t, []byte{0x11, 0x02, 0x01,
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
		0x0b, 0x0a,
		0xa8, 0xa7, 0xa6, 0xa5, 0xa4, 0xa3, 0xa2, 0xa1}, b)
	require.Len(t, b, req.Len())
	got, n, err := ParseSyncRequest(b)
	require.NoError(t, err)
	require.Equal(t, len(b), n)
	require.Equal(t, req, got)

	rep := SyncReply(req)
	b = rep.Append(nil)
	require.Equal(t, byte(0x12), b[0])
	require.Len(t, b, rep.Len())
	gotRep, n, err := ParseSyncReply(b)
	require.NoError(t, err)
	require.Equal(t, len(b), n)
	require.Equal(t, rep, gotRep)

	_, _, err = ParseSyncRequest(b)
	require.ErrorIs(t, err, ErrType)
}

func TestSyncAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	req := SyncRequest{Seq: 1, Nonce: 2, Protocol: 3, Settings: 4}
	rep := SyncReply{Seq: 1, Nonce: 2, Protocol: 3, Settings: 4}
	buf := make([]byte, 0, MaxPacket)
	allocs.RequireZero(t, 100, func() {
		_, _, _ = ParseSyncRequest(req.Append(buf[:0]))
		_, _, _ = ParseSyncReply(rep.Append(buf[:0]))
		_, _, _ = ParseSyncReply(buf[:5])
	})
}

func FuzzParseSyncRequest(f *testing.F) { fuzzParse(f, TypeSyncRequest) }
func FuzzParseSyncReply(f *testing.F)   { fuzzParse(f, TypeSyncReply) }
