package turn

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/internal/turncred"
)

// FuzzParseUsername: a username either is refused or is exactly what the
// signaling server would mint for the expiry and user it parses to, so
// one credential has one spelling.
func FuzzParseUsername(f *testing.F) {
	for _, user := range []string{"0123456789abcdef", "x", "a:b"} {
		u, _ := turncred.Mint([]byte("s"), user, time.Unix(1_800_000_000, 0))
		f.Add(u)
	}
	for _, s := range []string{"", ":", "1:", ":x", "01:x", "+1:x", "-1:x", "9223372036854775808:x", "1800000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, username string) {
		c, err := parseUsername(username)
		if err != nil {
			require.ErrorIs(t, err, errCredentials)
			return
		}
		again, _ := turncred.Mint([]byte("s"), c.user, c.expiry)
		require.Equal(t, username, again)
	})
}

func TestAuthKeyRefusesFromTheExpiryOn(t *testing.T) {
	exp := time.Unix(1_800_000_000, 0)
	u, _ := turncred.Mint([]byte("s"), "p", exp)
	_, _, err := authKey([]byte("s"), u, "r", exp.Add(-time.Nanosecond))
	require.NoError(t, err)
	_, _, err = authKey([]byte("s"), u, "r", exp)
	require.ErrorIs(t, err, errExpired)
	require.ErrorIs(t, err, errCredentials)
}
