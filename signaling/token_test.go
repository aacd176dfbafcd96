package signaling

import (
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
	// Every single-character change is refused.
	for i := range len(tok) {
		b := []byte(tok)
		b[i] ^= 1
		require.Error(t, checkToken(secret, "lobby", string(b), now), "change at %d", i)
	}
}

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
