package wire

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
)

func TestParseHeader(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		t    Type
		seq  uint16
		err  error
	}{
		{"keep-alive", []byte{0x17, 0x34, 0x12}, TypeKeepAlive, 0x1234, nil},
		{"input with body", []byte{0x13, 0xff, 0xff, 9, 9}, TypeInput, 0xffff, nil},
		{"empty", nil, 0, 0, io.ErrUnexpectedEOF},
		{"type only", []byte{0x11}, 0, 0, io.ErrUnexpectedEOF},
		{"half seq", []byte{0x11, 0}, 0, 0, ErrShort},
		{"version 0", []byte{0x01, 0, 0}, 0, 0, ErrVersion},
		{"version 2", []byte{0x21, 0, 0}, 0, 0, ErrVersion},
		{"version 2 one byte", []byte{0x21}, 0, 0, ErrVersion},
		{"type 0", []byte{0x10, 0, 0}, 0, 0, ErrType},
		{"type 10 (Rejoin)", []byte{0x1a, 0, 0}, TypeRejoin, 0, nil},
		{"type 11 (Hello)", []byte{0x1b, 0, 0}, TypeHello, 0, nil},
		{"type 15 (Nack)", []byte{0x1f, 0, 0}, TypeNack, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			typ, seq, n, err := ParseHeader(tc.b)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.t, typ)
			require.Equal(t, tc.seq, seq)
			require.Equal(t, HeaderLen, n)
		})
	}
}

func TestTypeString(t *testing.T) {
	require.Equal(t, "Input", TypeInput.String())
	require.Equal(t, "Disconnect", TypeDisconnect.String())
	require.Equal(t, "Unknown", Type(0).String())
	require.Equal(t, "Nack", Type(15).String())
}

// Every sample parses with its own parse function and re-encodes to the
// same bytes.
func TestMessagesRoundTrip(t *testing.T) {
	for _, s := range samples() {
		t.Run(s.name, func(t *testing.T) {
			typ, _, _, err := ParseHeader(s.b)
			require.NoError(t, err)
			require.Equal(t, s.t, typ)
			out, err := reencode(s.t, s.b, s.size)
			require.NoError(t, err)
			require.Equal(t, s.b, out)
		})
	}
}

// Every strict prefix of every valid message is an error wrapping
// io.ErrUnexpectedEOF.
func TestMessagesTruncated(t *testing.T) {
	for _, s := range samples() {
		t.Run(s.name, func(t *testing.T) {
			// A checksum's flag says it is there: the prefix without it is
			// no whole message either (protocol 3).
			for k := range len(s.b) {
				_, err := reencode(s.t, s.b[:k], s.size)
				require.ErrorIs(t, err, io.ErrUnexpectedEOF, "prefix of %d bytes of % x", k, s.b)
			}
		})
	}
}

// A byte after any whole message is malformed; after an Input's inputs or
// an InputAck's ack it no longer starts a checksum (protocol 3: a flag
// bit says whether one follows).
func TestMessagesTrailingBytes(t *testing.T) {
	for _, s := range samples() {
		t.Run(s.name, func(t *testing.T) {
			_, err := reencode(s.t, append(s.b[:len(s.b):len(s.b)], 0), s.size)
			require.ErrorIs(t, err, ErrMalformed)
		})
	}
}

func TestMessagesWrongVersion(t *testing.T) {
	for _, s := range samples() {
		t.Run(s.name, func(t *testing.T) {
			for _, v := range []byte{0, 2, 15} {
				b := append([]byte(nil), s.b...)
				b[0] = v<<4 | b[0]&0x0f
				_, err := reencode(s.t, b, s.size)
				require.ErrorIs(t, err, ErrVersion)
			}
		})
	}
}

// Each parse function refuses every other message type.
func TestMessagesWrongType(t *testing.T) {
	for _, s := range samples() {
		t.Run(s.name, func(t *testing.T) {
			for other := TypeSyncRequest; other <= TypeRejoin; other++ {
				if other == s.t {
					continue
				}
				_, err := reencode(other, s.b, 2)
				require.ErrorIs(t, err, ErrType, "parsed as %v", other)
			}
		})
	}
}

func TestHeaderAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	b := []byte{0x17, 1, 0}
	bad := []byte{0x27, 1, 0}
	allocs.RequireZero(t, 100, func() {
		_, _, _, _ = ParseHeader(b)
		_, _, _, _ = ParseHeader(bad)
		_, _, _, _ = ParseHeader(b[:1])
	})
}

func FuzzParseHeader(f *testing.F) {
	for _, s := range samples() {
		f.Add(s.b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		typ, seq, n, err := ParseHeader(b)
		if err != nil {
			return
		}
		if n != HeaderLen || !typ.valid() {
			t.Fatalf("ParseHeader(% x) = %v, %d, %d", b, typ, seq, n)
		}
		if out := appendHeader(nil, typ, seq); !bytes.Equal(out, b[:n]) {
			t.Fatalf("re-encoding differs: % x vs % x", out, b[:n])
		}
	})
}
