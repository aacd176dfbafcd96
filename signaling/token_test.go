package signaling

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestTokenRoundTrip(t *testing.T) {
	secret := []byte("s3cret")
	now := time.Unix(1_800_000_000, 0)
	tok := Token(secret, "lobby", now.Add(time.Minute))
	require.Regexp(t, `^1800000060\.[A-Za-z0-9_-]{43}$`, tok)
	require.NoError(t, checkToken(secret, "lobby", tok, now))
	require.NoError(t, checkToken(secret, "lobby", tok, now.Add(59*time.Second)))
	require.ErrorIs(t, checkToken(secret, "lobby", tok, now.Add(time.Minute)), errTokenExpired, "expiry is exclusive")
	require.ErrorIs(t, checkToken(secret, "lobby2", tok, now), errTokenMAC)
	require.ErrorIs(t, checkToken([]byte("other"), "lobby", tok, now), errTokenMAC)
	// The expiry is signed: moving it breaks the signature.
	require.ErrorIs(t, checkToken(secret, "lobby", "1900000000"+tok[10:], now), errTokenMAC)
	for _, bad := range []string{"", ".", "123", "123.", ".abc", "+1800000060" + tok[10:], "x.y", tok + "==", string(make([]byte, 200))} {
		require.Error(t, checkToken(secret, "lobby", bad, now), "%q", bad)
	}
	// The MAC has one spelling: the last character's unused low bits must
	// be zero (lax base64 took four spellings of every token).
	last := strings.IndexByte(base64URL, tok[len(tok)-1])
	for alt := last &^ 3; alt < last&^3+4; alt++ {
		if alt != last {
			require.ErrorIs(t, checkToken(secret, "lobby", tok[:len(tok)-1]+base64URL[alt:alt+1], now), errTokenMalformed, "spelling %c", base64URL[alt])
		}
	}
	// Every single-character change is refused.
	for i := range len(tok) {
		b := []byte(tok)
		b[i] ^= 1
		require.Error(t, checkToken(secret, "lobby", string(b), now), "change at %d", i)
	}
}

const base64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// FuzzCheckToken: only a token this package signed passes. The corpus in
// testdata/fuzz/FuzzCheckToken holds a token whose last character differs
// from the signed one in unused bits only, which lax base64 accepted.
func FuzzCheckToken(f *testing.F) {
	secret := []byte("s3cret")
	now := time.Unix(1_800_000_000, 0)
	f.Add("lobby", Token(secret, "lobby", now.Add(time.Minute)))
	f.Add("next=2", Token(secret, "next=2", now.Add(time.Hour)))
	f.Fuzz(func(t *testing.T, room, tok string) {
		if checkToken(secret, room, tok, now) == nil {
			// Only a token we signed passes.
			exp, _, _ := cutDot(tok)
			require.Equal(t, Token(secret, room, parseUnix(t, exp)), tok)
		}
	})
}

func cutDot(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == '.' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func parseUnix(t *testing.T, s string) time.Time {
	var n int64
	for _, c := range s {
		require.True(t, '0' <= c && c <= '9')
		n = n*10 + int64(c-'0')
	}
	return time.Unix(n, 0)
}
