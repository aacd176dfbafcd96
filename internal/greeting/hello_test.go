package greeting

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHelloRoundTripAndPrefixes(t *testing.T) {
	h := Hello{Role: RolePlayer, Seat: 1, Flags: FlagStarted | FlagHeard, Delay: 3, Players: 2, FrameRate: 60, Settings: 0xfeed, Name: "zoë"}
	b := h.Append(nil)
	require.Equal(t, h.Len(), len(b))
	got, n, err := ParseHello(b, "")
	require.NoError(t, err)
	require.Equal(t, len(b), n)
	require.Equal(t, h, got)
	for i := range len(b) {
		_, _, err := ParseHello(b[:i], "")
		require.ErrorIs(t, err, io.ErrUnexpectedEOF, "prefix %d", i)
	}
	_, _, err = ParseHello(append(b, 0), "")
	require.ErrorIs(t, err, ErrMalformed, "trailing byte")
	for _, bad := range []Hello{{Role: 0, Name: "x"}, {Role: RoleClient + 1}, {Role: RolePlayer, Flags: 4}, {Role: RolePlayer, Name: "a\x1b[2J"}} {
		_, _, err := ParseHello(bad.Append(nil), "")
		require.ErrorIs(t, err, ErrMalformed, "%+v", bad)
	}
	require.Zero(t, testing.AllocsPerRun(100, func() { _, _, _ = ParseHello(b, "zoë") }), "an unchanged name is not copied")
}

func TestStampAndMessage(t *testing.T) {
	b := AppendStamp(nil, KindPing, 42)
	k, s, err := ParseStamp(b)
	require.NoError(t, err)
	require.Equal(t, byte(KindPing), k)
	require.EqualValues(t, 42, s)
	_, _, err = ParseStamp(b[:9])
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	_, _, err = ParseStamp(append(b, 1))
	require.ErrorIs(t, err, ErrMalformed)

	m := AppendMessage(nil, []byte("gg"))
	p, err := ParseMessage(m)
	require.NoError(t, err)
	require.Equal(t, "gg", string(p))
	_, err = ParseMessage(AppendMessage(nil, make([]byte, MaxMessage+1)))
	require.ErrorIs(t, err, ErrMalformed)
}

func TestCleanName(t *testing.T) {
	require.Equal(t, "ab", CleanName("a\x1bb"))
	long := CleanName("ééééééééééééééééééééééééééééééééééé")
	require.LessOrEqual(t, len(long), MaxName)
	require.True(t, ValidName([]byte(long)))
}

func FuzzParseHello(f *testing.F) {
	f.Add(Hello{Role: RoleHost, Seat: NoSeat, Players: 4, FrameRate: 60, Name: "host"}.Append(nil))
	f.Add(AppendStamp(nil, KindPong, 7))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, n, err := ParseHello(b, "")
		if err != nil {
			return
		}
		require.Equal(t, len(b), n)
		require.Equal(t, b, h.Append(nil), "canonical")
	})
}

func FuzzParseStampMessage(f *testing.F) {
	f.Add(AppendStamp(nil, KindPing, 1))
	f.Add(AppendMessage(nil, []byte("hi")))
	f.Fuzz(func(t *testing.T, b []byte) {
		if k, s, err := ParseStamp(b); err == nil {
			require.Equal(t, b, AppendStamp(nil, k, s))
		}
		if p, err := ParseMessage(b); err == nil {
			require.Equal(t, b, AppendMessage(nil, p))
		}
	})
}
