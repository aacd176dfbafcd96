package entity

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAckRoundTripsAndRefusesEveryPrefix(t *testing.T) {
	for _, a := range []ack{
		{},
		{epoch: 3, number: 1, seq: 1, bits: 1, count: 1, digest: 1},
		{epoch: 255, number: 1<<32 - 1, seq: 1<<32 - 1, bits: ^uint64(0), count: 1<<32 - 1, digest: ^uint64(0)},
	} {
		b := a.Append(nil)
		require.Len(t, b, a.Len())
		got, n, err := parseAck(b)
		require.NoError(t, err)
		require.Equal(t, len(b), n)
		require.Equal(t, a, got)
		for i := range b {
			_, _, err := parseAck(b[:i])
			require.ErrorIs(t, err, io.ErrUnexpectedEOF, "prefix of %d bytes", i)
		}
		for i := range b { // any flipped bit fails the tag or the checksum
			c := append([]byte(nil), b...)
			c[i] ^= 0x10
			_, _, err := parseAck(c)
			require.Error(t, err, "byte %d flipped", i)
		}
	}
}

// sampleUpdate is an update of every record kind, states of 3 bytes.
func sampleUpdate() []byte {
	b := appendUpdateHeader(nil, 2, 7, 1000, 3)
	b = appendRecord(b, 0, record{index: 0, kind: kindEntered, gen: 0, state: []byte{1, 2, 3}})
	b = appendRecord(b, 1, record{index: 200, kind: kindLeft, gen: 65535})
	b = appendRecord(b, 201, record{index: 9999, kind: kindChanged, gen: 7, state: []byte{4, 5, 6}})
	return finishUpdate(b, 0)
}

func TestUpdateRoundTripsAndRefusesEveryPrefix(t *testing.T) {
	b := sampleUpdate()
	u, n, err := parseUpdate(b, 3, 10000)
	require.NoError(t, err)
	require.Equal(t, len(b), n)
	require.Equal(t, update{epoch: 2, seq: 7, tick: 1000, count: 3, records: u.records}, u)
	var got []record
	next, rs := uint32(0), u.records
	for range u.count {
		r, k, err := parseRecord(rs, next, 3, 10000)
		require.NoError(t, err)
		rs, next = rs[k:], r.index+1
		got = append(got, r)
	}
	require.Equal(t, []record{
		{index: 0, kind: kindEntered, gen: 0, state: []byte{1, 2, 3}},
		{index: 200, kind: kindLeft, gen: 65535},
		{index: 9999, kind: kindChanged, gen: 7, state: []byte{4, 5, 6}},
	}, got)
	require.Equal(t, len(b), updateLen(got, 3))
	for i := range b {
		_, _, err := parseUpdate(b[:i], 3, 10000)
		require.ErrorIs(t, err, io.ErrUnexpectedEOF, "prefix of %d bytes", i)
	}
	_, _, err = parseUpdate(b, 3, 9999) // index 9999 out of range
	require.ErrorIs(t, err, ErrMalformed)
	c := append([]byte(nil), b...)
	c[len(c)-5] ^= 1 // a state byte: only the checksum sees it
	_, _, err = parseUpdate(c, 3, 10000)
	require.ErrorIs(t, err, ErrMalformed)
}

func TestUpdateRefusesAKindOutOfRange(t *testing.T) {
	b := appendUpdateHeader(nil, 0, 1, 1, 1)
	b = append(b, 3, 0) // head: index 0, kind 3
	b = finishUpdate(b, 0)
	_, _, err := parseUpdate(b, 3, 10)
	require.ErrorIs(t, err, ErrMalformed)
}

// updateLen is the length of an update of rs (ascending indices).
func updateLen(rs []record, size int) int {
	n := len(appendUpdateHeader(nil, 2, 7, 1000, len(rs))) + 4
	next := uint32(0)
	for _, r := range rs {
		s := 0
		if r.kind != kindLeft {
			s = size
		}
		n += recordLen(r.index, next, r.kind, r.gen, s)
		next = r.index + 1
	}
	return n
}
