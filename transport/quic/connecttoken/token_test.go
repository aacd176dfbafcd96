package connecttoken

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var (
	secret = []byte("backend and host share this 32-byte secret")
	epoch  = time.Unix(1_800_000_000, 0)
)

func claims() Claims {
	return Claims{Room: "match-7", Client: 42, Expires: epoch.Add(30 * time.Second), Address: "203.0.113.5:4433"}
}

// A grant survives its text form, claims and all. (Checking a token is
// the hosts' half: internal/tokenverify's tests.)
func TestMintParse(t *testing.T) {
	g, err := Mint(secret, claims(), nil)
	require.NoError(t, err)
	require.LessOrEqual(t, len(g.Token), MaxSize)
	parsed, err := ParseGrant(g.String())
	require.NoError(t, err)
	require.Equal(t, g, parsed)
	require.Equal(t, claims(), parsed.Claims)
}

func TestBadArguments(t *testing.T) {
	_, err := Mint([]byte("short"), claims(), nil)
	require.ErrorIs(t, err, ErrInvalid)
	c := claims()
	c.Room = string(make([]byte, 33))
	_, err = Mint(secret, c, nil)
	require.ErrorIs(t, err, ErrInvalid)
	c = claims()
	c.Address = ""
	_, err = Mint(secret, c, nil)
	require.ErrorIs(t, err, ErrInvalid)
	_, err = Mint(secret, claims(), bytes.NewReader(nil))
	require.ErrorIs(t, err, io.EOF)
	for _, s := range []string{"", "abc", "abc.def", "!!.AAAA"} {
		_, err := ParseGrant(s)
		require.ErrorIs(t, err, ErrMalformed, "%q", s)
	}
}

func ExampleMint() {
	secret := []byte("backend and host share this 32-byte secret") // the host's -token-secret-file
	g, _ := Mint(secret, Claims{Room: "match-7", Client: 42, Expires: time.Now().Add(time.Minute), Address: "203.0.113.5:4433"}, nil)
	s := g.String() // to the client, in the placement's reply
	got, err := ParseGrant(s)
	fmt.Println(got.Claims.Room, got.Claims.Client, err)
	// Output:
	// match-7 42 <nil>
}
