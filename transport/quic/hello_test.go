package quic

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHelloRoundTripAndTruncation(t *testing.T) {
	key := hello{hasKey: true}
	for i := range key.key {
		key.key[i] = byte(i + 1)
	}
	for _, h := range []hello{{}, key} {
		b := h.Append(nil)
		require.Len(t, b, h.Len())
		got, n, err := parseHello(b)
		require.NoError(t, err)
		require.Equal(t, len(b), n)
		require.Equal(t, h, got)
		for i := range len(b) {
			_, _, err := parseHello(b[:i])
			require.ErrorIs(t, err, io.ErrUnexpectedEOF, "hello cut to %d bytes", i)
		}
	}
	_, _, err := parseHello([]byte{helloKind, 7, 1, 2, 3, 4, 5, 6, 7})
	require.ErrorIs(t, err, ErrHello, "a 7-byte key")
	_, _, err = parseHello([]byte{welcomeKind, 0})
	require.ErrorIs(t, err, ErrHello)
}

func TestWelcomeRoundTripAndTruncation(t *testing.T) {
	for _, w := range []welcome{
		{admitted: true, you: "q1", host: "quic://127.0.0.1:4433"},
		{reason: "host full"},
		{reason: ""},
	} {
		b := w.Append(nil)
		require.Len(t, b, w.Len())
		got, n, err := parseWelcome(b)
		require.NoError(t, err)
		require.Equal(t, len(b), n)
		require.Equal(t, w, got)
		for i := range len(b) {
			_, _, err := parseWelcome(b[:i])
			require.ErrorIs(t, err, io.ErrUnexpectedEOF, "welcome cut to %d bytes", i)
		}
	}
	for _, bad := range []welcome{{admitted: true, you: "", host: "h"}, {admitted: true, you: "h", host: "h"}} {
		_, _, err := parseWelcome(bad.Append(nil))
		require.ErrorIs(t, err, ErrHello, "%+v", bad)
	}
}

func FuzzParseHello(f *testing.F) {
	f.Add(hello{}.Append(nil))
	f.Add(hello{hasKey: true}.Append(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, n, err := parseHello(b)
		if err != nil {
			return
		}
		require.LessOrEqual(t, n, len(b))
		require.Equal(t, b[:n], h.Append(nil), "a parsed hello re-encodes to its bytes")
	})
}

func FuzzParseWelcome(f *testing.F) {
	f.Add(welcome{admitted: true, you: "q1", host: "quic://h:1"}.Append(nil))
	f.Add(welcome{reason: "host full"}.Append(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		w, n, err := parseWelcome(b)
		if err != nil {
			return
		}
		require.LessOrEqual(t, n, len(b))
		require.Equal(t, b[:n], w.Append(nil), "a parsed welcome re-encodes to its bytes")
	})
}
