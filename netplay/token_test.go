package netplay_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/netplay"
)

func sampleToken() netplay.Token {
	t := netplay.Token{Mode: netplay.ModeP2P, Room: "friday", Seat: 1}
	t.Rejoin.Match = 0x1122334455667788
	t.Rejoin.Secret[0], t.Rejoin.Secret[15] = 1, 2
	return t
}

// The text form is a format players keep in files: tokens written before
// the three rejoin token types became rollnet.RejoinToken read back the
// same, and are written again byte for byte.
func TestTokenTextStable(t *testing.T) {
	client := netplay.Token{Mode: netplay.ModeClient, Room: "arena", Seat: 3}
	client.Rejoin.Secret[0], client.Rejoin.Secret[3], client.Rejoin.Secret[15] = 7, 9, 0xff
	for _, c := range []struct {
		tok  netplay.Token
		text string
	}{
		{sampleToken(), "rn1.AQGId2ZVRDMiEQEAAAAAAAAAAAAAAAAAAAIAAAAAAAAAAAAAAAAAAAAABmZyaWRheQ"},
		{client, "rn1.BAMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAHAAAJAAAAAAAAAAAAAAD_BWFyZW5h"},
	} {
		text, err := c.tok.MarshalText()
		require.NoError(t, err)
		require.Equal(t, c.text, string(text))
		var back netplay.Token
		require.NoError(t, back.UnmarshalText([]byte(c.text)))
		require.Equal(t, c.tok, back)
	}
}

func TestTokenText(t *testing.T) {
	tok := sampleToken()
	text, err := tok.MarshalText()
	require.NoError(t, err)
	require.Regexp(t, `^rn1\.[A-Za-z0-9_-]+$`, string(text))
	var back netplay.Token
	require.NoError(t, back.UnmarshalText(text))
	require.Equal(t, tok, back)
	for _, bad := range []string{"", "rn1.", "rn2." + string(text[4:]), string(text[:len(text)-2]), string(text) + "A", "rn1.!!!!"} {
		require.ErrorIs(t, back.UnmarshalText([]byte(bad)), netplay.ErrToken, bad)
	}
}

func TestFileStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pong.token")
	s := netplay.FileStore(path)
	_, ok, err := s.Load("friday")
	require.NoError(t, err)
	require.False(t, ok, "no file, no token")
	require.NoError(t, s.Save(sampleToken()))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	got, ok, err := s.Load("friday")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, sampleToken(), got)
	_, ok, err = s.Load("monday")
	require.NoError(t, err)
	require.False(t, ok, "another room's token")
	require.NoError(t, s.Delete("monday"))
	require.FileExists(t, path, "deleting another room's token leaves the file")
	require.NoError(t, s.Delete("friday"))
	require.NoFileExists(t, path)
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	require.Empty(t, entries, "no temporary file left")

	require.NoError(t, os.WriteFile(path, []byte("garbage"), 0o600))
	_, _, err = s.Load("friday")
	require.ErrorIs(t, err, netplay.ErrToken)
}

func FuzzTokenText(f *testing.F) {
	text, _ := sampleToken().MarshalText()
	f.Add(text)
	f.Fuzz(func(t *testing.T, b []byte) {
		var tok netplay.Token
		if tok.UnmarshalText(b) != nil {
			return
		}
		again, err := tok.MarshalText()
		require.NoError(t, err)
		var back netplay.Token
		require.NoError(t, back.UnmarshalText(again))
		require.Equal(t, tok, back)
	})
}
