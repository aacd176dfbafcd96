package netplay

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestHelloRoundTripAndPrefixes(t *testing.T) {
	h := hello{Role: rolePlayer, Seat: 1, Flags: flagStarted | flagHeard, Delay: 3, Players: 2, FrameRate: 60, Settings: 0xfeed, Name: "zoë"}
	b := h.Append(nil)
	require.Equal(t, h.Len(), len(b))
	got, n, err := parseHello(b, "")
	require.NoError(t, err)
	require.Equal(t, len(b), n)
	require.Equal(t, h, got)
	for i := range len(b) {
		_, _, err := parseHello(b[:i], "")
		require.ErrorIs(t, err, io.ErrUnexpectedEOF, "prefix %d", i)
	}
	_, _, err = parseHello(append(b, 0), "")
	require.ErrorIs(t, err, errMalformed, "trailing byte")
	for _, bad := range []hello{{Role: 0, Name: "x"}, {Role: roleClient + 1}, {Role: rolePlayer, Flags: 4}, {Role: rolePlayer, Name: "a\x1b[2J"}} {
		_, _, err := parseHello(bad.Append(nil), "")
		require.ErrorIs(t, err, errMalformed, "%+v", bad)
	}
	require.Zero(t, testing.AllocsPerRun(100, func() { _, _, _ = parseHello(b, "zoë") }), "an unchanged name is not copied")
}

func TestStampAndMessage(t *testing.T) {
	b := appendStamp(nil, kindPing, 42)
	k, s, err := parseStamp(b)
	require.NoError(t, err)
	require.Equal(t, byte(kindPing), k)
	require.EqualValues(t, 42, s)
	_, _, err = parseStamp(b[:9])
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	_, _, err = parseStamp(append(b, 1))
	require.ErrorIs(t, err, errMalformed)

	m := appendMessage(nil, []byte("gg"))
	p, err := parseMessage(m)
	require.NoError(t, err)
	require.Equal(t, "gg", string(p))
	_, err = parseMessage(appendMessage(nil, make([]byte, MaxMessage+1)))
	require.ErrorIs(t, err, errMalformed)
}

func TestCleanName(t *testing.T) {
	require.Equal(t, "ab", cleanName("a\x1bb"))
	long := cleanName("ééééééééééééééééééééééééééééééééééé")
	require.LessOrEqual(t, len(long), MaxName)
	require.True(t, validName([]byte(long)))
}

func FuzzParseHello(f *testing.F) {
	f.Add(hello{Role: roleHost, Seat: noSeat, Players: 4, FrameRate: 60, Name: "host"}.Append(nil))
	f.Add(appendStamp(nil, kindPong, 7))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, n, err := parseHello(b, "")
		if err != nil {
			return
		}
		require.Equal(t, len(b), n)
		require.Equal(t, b, h.Append(nil), "canonical")
	})
}

func FuzzParseStampMessage(f *testing.F) {
	f.Add(appendStamp(nil, kindPing, 1))
	f.Add(appendMessage(nil, []byte("hi")))
	f.Fuzz(func(t *testing.T, b []byte) {
		if k, s, err := parseStamp(b); err == nil {
			require.Equal(t, b, appendStamp(nil, k, s))
		}
		if p, err := parseMessage(b); err == nil {
			require.Equal(t, b, appendMessage(nil, p))
		}
	})
}

func FuzzParseRoster(f *testing.F) {
	f.Add([]byte{appByte, kindRoster, 2, 1, 0, 3, 'b', 'o', 'b', 2, 15, 1, 'a'})
	f.Add([]byte{appByte, kindRoster, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		m := &Match[int32, int8]{names: make([]string, 4), cfg: Config{Now: time.Now}, seat: 1}
		if m.parseRoster(b) != nil {
			return
		}
		for _, n := range m.names {
			require.True(t, validName([]byte(n)))
		}
	})
}
