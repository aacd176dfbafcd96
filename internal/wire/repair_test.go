package wire

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRepair(t *testing.T) {
	data := bytes.Repeat([]byte{7}, RepairChunk)
	for _, m := range []Repair{
		{Seq: 3, Kind: RepairAsk, Frame: 310},
		{Seq: 4, Kind: RepairAck, Frame: 305, Part: -1},
		{Seq: 4, Kind: RepairAck, Frame: 305, Part: 13},
		{Seq: 5, Kind: RepairPart, Frame: 305, Sum: 0xdeadbeef, Size: 2*RepairChunk + 1, Part: 1, Data: data},
		{Seq: 5, Kind: RepairPart, Frame: 305, Sum: 0xdeadbeef, Size: 100, Part: 0, Data: data[:100]},
		{Seq: 5, Kind: RepairPart, Frame: 305, Sum: 1, Size: 2*RepairChunk + 1, Part: 2, Data: data[:1]},
	} {
		b := m.Append(nil)
		require.LessOrEqual(t, len(b), MaxPacket)
		require.True(t, IsRepair(b))
		var got Repair
		require.NoError(t, ParseRepair(b, &got))
		require.Equal(t, m, got)
		for i := range b {
			require.Error(t, ParseRepair(b[:i], &got), "prefix of %d bytes", i)
		}
		require.ErrorIs(t, ParseRepair(append(b, 0), &got), ErrMalformed, "trailing byte")
	}
	bad := []Repair{
		{Kind: RepairAsk, Frame: -1},
		{Kind: RepairAsk, Frame: 1, Part: 1},
		{Kind: RepairAck, Frame: 1, Part: -2},
		{Kind: RepairPart, Frame: 1, Size: 10, Part: 0},                              // no data
		{Kind: RepairPart, Frame: 1, Size: 10, Part: 0, Data: data[:11]},             // past Size
		{Kind: RepairPart, Frame: 1, Size: 3 * RepairChunk, Part: 3, Data: data[:1]}, // past Size
		{Kind: RepairPart, Frame: 1, Size: MaxRepairState + 1, Part: 0, Data: data[:1]},
		{Kind: RepairPart, Frame: 1, Size: 10, Part: -1, Data: data[:1]},
		{Kind: RepairPart, Frame: 1, Size: 2 * RepairChunk, Part: 0, Data: data[:RepairChunk-1]}, // short of its part
		{Kind: RepairAck + 1, Frame: 1},
	}
	for _, m := range bad {
		var got Repair
		require.ErrorIs(t, ParseRepair(m.Append(nil), &got), ErrMalformed, "%+v", m)
	}
	// A Rejoin is not a Repair, and ParseRejoin refuses a Repair.
	require.False(t, IsRepair(Rejoin{Kind: RejoinAtAck}.Append(nil)))
	_, _, err := ParseRejoin((&Repair{Kind: RepairAsk, Frame: 1}).Append(nil))
	require.Error(t, err)
}

// FuzzParseRepair: hostile bytes never panic, and what parses encodes
// back to the same bytes.
func FuzzParseRepair(f *testing.F) {
	f.Add((&Repair{Kind: RepairAsk, Frame: 310}).Append(nil))
	f.Add((&Repair{Kind: RepairAck, Frame: 305, Part: 2}).Append(nil))
	f.Add((&Repair{Kind: RepairPart, Frame: 305, Sum: 9, Size: 100, Part: 0, Data: make([]byte, 100)}).Append(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		var m Repair
		if ParseRepair(b, &m) != nil {
			return
		}
		if !bytes.Equal(m.Append(nil), b) {
			t.Fatalf("%+v encodes to other bytes", m)
		}
	})
}
