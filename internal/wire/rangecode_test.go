package wire

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// rangeSamples are Data shapes a host codes: empty deltas, sparse ones
// (a few changed words in a big state), dense ones and a full random
// state.
func rangeSamples() [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	sparse := make([]byte, 16<<10)
	for range 20 {
		sparse[r.IntN(len(sparse))] = byte(r.IntN(4) + 1)
	}
	dense := make([]byte, 3000)
	for i := range dense {
		if r.IntN(3) == 0 {
			dense[i] = byte(r.Uint32())
		}
	}
	full := make([]byte, 5000)
	for i := range full {
		full[i] = byte(r.Uint32())
	}
	return [][]byte{{}, {0}, {1}, {0xff}, {0, 0, 0, 7}, make([]byte, 700), sparse, dense, full, append(make([]byte, 1<<16), 0x80)}
}

// Every Data codes and decodes to itself, and the stream is the only one
// that decodes to it (the decoder refuses what the encoder would not
// write: a raw stream of what the model codes, a zero at the end, bytes
// past it).
func TestRangeRoundTrip(t *testing.T) {
	for _, d := range rangeSamples() {
		b := appendRange([]byte{0xaa}, d)
		require.Equal(t, byte(0xaa), b[0], "appended")
		out := bytes.Repeat([]byte{0x55}, len(d))
		require.NoError(t, decodeRange(b[1:], out))
		require.Equal(t, d, out)
		if len(b) > 1 {
			require.NotZero(t, b[len(b)-1], "its zeros at the end are not sent")
			require.ErrorIs(t, decodeRange(append(b[1:len(b):len(b)], 1), out), ErrMalformed, "a byte past it")
			c := append([]byte(nil), b[1:]...)
			c[len(c)-1]++
			if c[len(c)-1] != 0 && c[0] != rawMark { // a raw stream is its bytes
				require.ErrorIs(t, decodeRange(c, out), ErrMalformed, "its last byte changed: another final value")
			}
		}
		if len(d) > 0 && d[len(d)-1] != 0 {
			require.ErrorIs(t, decodeRange(b[1:], out[:len(d)-1]), ErrMalformed, "into a shorter Data")
		}
	}
}

// The coding's size: nothing for an empty delta, a few bytes for a sparse
// one, and a random state grows by under 3% (a body of the largest state
// fits MaxStateBody).
func TestRangeSize(t *testing.T) {
	s := rangeSamples()
	require.Empty(t, appendRange(nil, make([]byte, 64<<10)), "a delta of zeros is no bytes")
	require.Less(t, len(appendRange(nil, s[6])), 60, "20 changed bytes in 16 KiB")
	r := rand.New(rand.NewPCG(3, 4))
	full := make([]byte, 64<<10+MaxStateInputs)
	for i := range full {
		full[i] = byte(r.Uint32())
	}
	n := len(appendRange(nil, full))
	require.LessOrEqual(t, n, len(full)+rawSlack, "random bytes")
	require.Less(t, n+32, MaxStateBody)
	// Bytes the model predicts worst: each a surprise.
	for i := range full {
		full[i] = byte(0x80 >> (i % 8))
		if i%5 == 0 {
			full[i] = 0
		}
	}
	require.LessOrEqual(t, len(appendRange(nil, full)), len(full)+rawSlack)
}

// A raw stream is its first byte, 0xff, then Data's bytes without its
// trailing zeros: what the model would code longer is sent so, and a
// model's stream never starts with 0xff.
func TestRangeRaw(t *testing.T) {
	s := rangeSamples()
	full := s[8]
	b := appendRange(nil, full)
	require.Equal(t, append([]byte{rawMark}, full...), b, "random bytes are sent raw")
	out := make([]byte, len(full)+3)
	require.NoError(t, decodeRange(b, out))
	require.Equal(t, append(append([]byte(nil), full...), 0, 0, 0), out, "the zeros past it written")
	require.ErrorIs(t, decodeRange(b, out[:len(full)-1]), ErrMalformed, "more bytes than Data")
	require.ErrorIs(t, decodeRange(append(b[:len(b):len(b)], 0), out), ErrMalformed, "a zero at its end")
	require.ErrorIs(t, decodeRange([]byte{rawMark}, out), ErrMalformed, "zeros sent raw: the model codes them")
	require.ErrorIs(t, decodeRange([]byte{rawMark, 1, 0, 0, 2}, out), ErrMalformed, "a sparse Data sent raw")
	for _, d := range s {
		if c := appendRange(nil, d); len(c) > 0 && len(c) < len(d) {
			require.NotEqual(t, byte(rawMark), c[0], "a model's stream")
		}
	}
}

func TestRangeAllocs(t *testing.T) {
	s := rangeSamples()
	buf := make([]byte, 0, 2*len(s[8]))
	out := make([]byte, 1<<16+1)
	require.Zero(t, testing.AllocsPerRun(20, func() {
		for _, d := range s {
			buf = appendRange(buf[:0], d)
			_ = decodeRange(buf, out[:len(d)])
		}
	}))
}

// FuzzRange: any bytes decode or are refused without a panic, and a
// stream that decodes is the one its Data codes as (one stream for one
// Data, raw ones too: ff ee, c1c008f4cf63096b, was taken by protocol 6's
// decoder); any Data codes and decodes to itself.
func FuzzRange(f *testing.F) {
	for _, d := range rangeSamples() {
		if len(d) < 6000 {
			f.Add(appendRange(nil, d), uint16(len(d)))
			f.Add(d, uint16(len(d)))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, n uint16) {
		out := make([]byte, n)
		if err := decodeRange(b, out); err == nil {
			if c := appendRange(nil, out); !bytes.Equal(c, b) {
				t.Fatalf("% x decodes to % x, which codes as % x", b, out, c)
			}
		}
		c := appendRange(nil, b)
		back := make([]byte, len(b))
		if err := decodeRange(c, back); err != nil || !bytes.Equal(back, b) {
			t.Fatalf("% x codes as % x, which decodes to % x (%v)", b, c, back, err)
		}
	})
}
