package tokenverify

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/tokenwire"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

var (
	secret = []byte("backend and host share this 32-byte secret")
	epoch  = time.Unix(1_800_000_000, 0)
)

func claims() Claims {
	return Claims{Room: "match-7", Client: 42, Expires: epoch.Add(30 * time.Second), Address: "203.0.113.5:4433"}
}

func verifier(t *testing.T, now *time.Time) *Verifier {
	t.Helper()
	v, err := NewVerifier(secret, "203.0.113.5:4433", Config{Now: func() time.Time { return *now }})
	require.NoError(t, err)
	return v
}

func TestMintCheckRedeem(t *testing.T) {
	now := epoch
	v := verifier(t, &now)
	g, err := connecttoken.Mint(secret, claims(), nil)
	require.NoError(t, err)
	require.LessOrEqual(t, len(g.Token), connecttoken.MaxSize)

	parsed, err := connecttoken.ParseGrant(g.String())
	require.NoError(t, err)
	require.Equal(t, g, parsed, "a grant survives its text form")

	tk, err := v.Check(g.Token)
	require.NoError(t, err)
	require.Equal(t, claims(), tk.Claims)
	require.NoError(t, v.Redeem(tk, g.Key))
	require.Equal(t, uint64(1), v.Stats().Redeemed)
}

// Every way a token can be bad is refused, with its own error and counter.
func TestRefusals(t *testing.T) {
	now := epoch
	v := verifier(t, &now)
	mint := func(c Claims, key []byte) connecttoken.Grant {
		g, err := connecttoken.Mint(key, c, nil)
		require.NoError(t, err)
		return g
	}
	good := mint(claims(), secret)

	// Forged: another secret, or one flipped bit anywhere.
	_, err := v.Check(mint(claims(), []byte("some other backend's secret!")).Token)
	require.ErrorIs(t, err, ErrForged)
	for i := range good.Token {
		if i == 0 {
			continue // the version byte: malformed instead
		}
		b := bytes.Clone(good.Token)
		b[i] ^= 1
		_, err := v.Check(b)
		require.Error(t, err, "bit flipped in byte %d", i)
		require.NotErrorIs(t, err, ErrReplayed)
	}
	// Wrong address, wrong room.
	other := claims()
	other.Address = "198.51.100.9:4433"
	_, err = v.Check(mint(other, secret).Token)
	require.ErrorIs(t, err, ErrWrongAddress)
	roomed, err := NewVerifier(secret, "203.0.113.5:4433", Config{Room: "match-8", Now: func() time.Time { return now }})
	require.NoError(t, err)
	_, err = roomed.Check(good.Token)
	require.ErrorIs(t, err, ErrWrongRoom)
	// Expired, and too far ahead.
	late := claims()
	late.Expires = epoch
	_, err = v.Check(mint(late, secret).Token)
	require.ErrorIs(t, err, ErrExpired)
	far := claims()
	far.Expires = epoch.Add(time.Hour)
	_, err = v.Check(mint(far, secret).Token)
	require.ErrorIs(t, err, connecttoken.ErrMalformed)
	// Malformed: every truncation, and garbage.
	for i := range good.Token {
		_, err := v.Check(good.Token[:i])
		require.ErrorIs(t, err, connecttoken.ErrMalformed, "token cut to %d bytes", i)
	}
	_, err = v.Check(append(bytes.Clone(good.Token), 0))
	require.ErrorIs(t, err, connecttoken.ErrMalformed)

	// Presented twice at once (a copier's and the owner's): the one that
	// shows the key wins, whichever came first; then it is Replayed.
	copied, err := v.Check(good.Token)
	require.NoError(t, err)
	tk, err := v.Check(good.Token)
	require.NoError(t, err, "a token another connection presents")
	var wrong [KeySize]byte
	require.ErrorIs(t, v.Redeem(copied, wrong), ErrWrongKey)
	require.NoError(t, v.Redeem(tk, good.Key))
	v.Release(tk) // a redeemed token stays used
	v.Release(copied)
	_, err = v.Check(good.Token)
	require.ErrorIs(t, err, ErrReplayed, "a redeemed token")
	require.ErrorIs(t, v.Redeem(tk, good.Key), ErrReplayed, "redeemed twice")

	// Released unredeemed: usable again (the client retries), and
	// forgotten once no connection presents it.
	g2 := mint(claims(), secret)
	tk2, err := v.Check(g2.Token)
	require.NoError(t, err)
	v.Release(tk2)
	tk2, err = v.Check(g2.Token)
	require.NoError(t, err)
	v.Release(tk2)
	v.mu.Lock()
	require.NotContains(t, v.seen, tk2.mac)
	v.mu.Unlock()

	st := v.Stats()
	require.NotZero(t, st.Forged)
	require.Equal(t, uint64(1), st.WrongAddress)
	require.Equal(t, uint64(1), roomed.Stats().WrongRoom)
	require.Equal(t, uint64(1), st.Expired)
	require.GreaterOrEqual(t, st.Malformed, uint64(len(good.Token)+2))
	require.Equal(t, uint64(2), st.Replayed)
	require.Equal(t, uint64(1), st.WrongKey)
	require.Equal(t, uint64(2), st.Released)
}

// Used tokens are remembered until they expire, up to the bound: past it
// new tokens are refused, and once old ones expire there is room again.
func TestRememberedBound(t *testing.T) {
	now := epoch
	v, err := NewVerifier(secret, "203.0.113.5:4433", Config{MaxRemembered: 2, Now: func() time.Time { return now }})
	require.NoError(t, err)
	for range 2 {
		g, err := connecttoken.Mint(secret, claims(), nil)
		require.NoError(t, err)
		_, err = v.Check(g.Token)
		require.NoError(t, err)
	}
	c := claims()
	c.Expires = epoch.Add(2 * time.Minute)
	g, err := connecttoken.Mint(secret, c, nil)
	require.NoError(t, err)
	_, err = v.Check(g.Token)
	require.ErrorIs(t, err, ErrFull)
	now = epoch.Add(time.Minute) // the first two expired
	_, err = v.Check(g.Token)
	require.NoError(t, err)
}

func TestBadArguments(t *testing.T) {
	_, err := connecttoken.Mint([]byte("short"), claims(), nil)
	require.ErrorIs(t, err, connecttoken.ErrInvalid)
	c := claims()
	c.Room = string(make([]byte, tokenwire.MaxRoom+1))
	_, err = connecttoken.Mint(secret, c, nil)
	require.ErrorIs(t, err, connecttoken.ErrInvalid)
	c = claims()
	c.Address = ""
	_, err = connecttoken.Mint(secret, c, nil)
	require.ErrorIs(t, err, connecttoken.ErrInvalid)
	_, err = NewVerifier(secret, "", Config{})
	require.ErrorIs(t, err, connecttoken.ErrInvalid)
	_, err = connecttoken.Mint(secret, claims(), bytes.NewReader(nil))
	require.ErrorIs(t, err, io.EOF)
	for _, s := range []string{"", "abc", "abc.def", "!!.AAAA"} {
		_, err := connecttoken.ParseGrant(s)
		require.ErrorIs(t, err, connecttoken.ErrMalformed, "%q", s)
	}
}

func FuzzCheck(f *testing.F) {
	// A fixed nonce: the fuzzing workers mint the same token as the
	// process that seeds them.
	g, err := connecttoken.Mint(secret, claims(), bytes.NewReader(make([]byte, 8)))
	require.NoError(f, err)
	f.Add(g.Token)
	f.Add([]byte{tokenwire.Version})
	now := epoch
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := NewVerifier(secret, "203.0.113.5:4433", Config{Now: func() time.Time { return now }})
		require.NoError(t, err)
		if tk, err := v.Check(b); err == nil {
			require.True(t, bytes.Equal(b, g.Token), "only the minted token checks")
			require.Equal(t, claims(), tk.Claims)
		}
		if p, err := tokenwire.Parse(b); err == nil {
			require.Equal(t, len(b), len(p.Body)+len(p.MAC))
		}
	})
}

// The host derives a presented token's client key as the backend did,
// and a different token's key differs.
func TestClientKey(t *testing.T) {
	now := epoch
	v := verifier(t, &now)
	g, err := connecttoken.Mint(secret, claims(), nil)
	require.NoError(t, err)
	other, err := connecttoken.Mint(secret, claims(), nil)
	require.NoError(t, err)
	tk, err := v.Check(g.Token)
	require.NoError(t, err)
	require.Equal(t, g.Key, v.ClientKey(tk))
	require.NotEqual(t, other.Key, v.ClientKey(tk))
}

func ExampleVerifier() {
	secret := []byte("backend and host share this 32-byte secret")
	g, _ := connecttoken.Mint(secret, connecttoken.Claims{Room: "match-7", Client: 42, Expires: time.Now().Add(time.Minute), Address: "203.0.113.5:4433"}, nil)
	v, _ := NewVerifier(secret, "203.0.113.5:4433", Config{})
	tk, err := v.Check(g.Token) // on the host, before any TLS work
	if err != nil {
		return
	}
	fmt.Println(tk.Claims.Client, v.Redeem(tk, g.Key)) // once the key arrives inside TLS
	_, err = v.Check(g.Token)
	fmt.Println(err)
	// Output:
	// 42 <nil>
	// connecttoken: token already used
}
