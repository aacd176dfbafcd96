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
	t.P2P.Match = 0x1122334455667788
	t.P2P.Secret[0], t.P2P.Secret[15] = 1, 2
	t.Host[3] = 9
	return t
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
	s := netplay.FileStore{Path: path}
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
