package signaling

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/internal/wire"
)

// validEnvelopes are real messages of each type, in both directions; they
// seed the fuzz target.
var validEnvelopes = []struct {
	dir direction
	msg string
}{
	{fromClient, `{"v":1,"type":"join"}`},
	{fromClient, `{"v":1,"type":"signal","peer":"0123456789abcdef","kind":"offer","payload":{"type":"offer","sdp":"v=0"}}`},
	{fromClient, `{"v":1,"type":"signal","peer":"0123456789abcdef","kind":"candidate","payload":"candidate:1 1 udp 1 127.0.0.1 5000 typ host"}`},
	{fromServer, `{"v":1,"type":"join","id":"0123456789abcdef","room":"lobby","max":16384}`},
	{fromServer, `{"v":1,"type":"join","id":"0123456789abcdef","room":"next2-aaaaaaaaaaaaaaaa","peers":["fedcba9876543210"],"ice":[{"urls":["stun:s:3478"]},{"urls":["turn:t:3478"],"username":"u","credential":"c"}],"max":16384}`},
	{fromServer, `{"v":1,"type":"peer-joined","peer":"0123456789abcdef"}`},
	{fromServer, `{"v":1,"type":"peer-left","peer":"0123456789abcdef"}`},
	{fromServer, `{"v":1,"type":"signal","peer":"0123456789abcdef","kind":"answer","payload":{"sdp":"v=0"}}`},
	{fromServer, `{"v":1,"type":"error","code":"unknown-peer","message":"signaling: peer not in room","peer":"0123456789abcdef"}`},
	{fromClient, `{"v":2,"type":"join"}`},
	{fromClient, `{"v":2,"type":"signal","peer":"0123456789abcdef","kind":"candidate","payload":[{"candidate":"candidate:1 1 udp 1 127.0.0.1 5000 typ host","sdpMid":"0"}]}`},
	{fromServer, `{"v":2,"type":"join","id":"0123456789abcdef","room":"lobby","max":16384}`},
	{fromServer, `{"v":2,"type":"join","id":"0123456789abcdef","room":"lobby","peers":["fedcba9876543210","aaaaaaaaaaaaaaaa"],"protocols":[1,2],"max":16384}`},
	{fromServer, `{"v":2,"type":"peer-joined","peer":"0123456789abcdef","protocol":1}`},
	{fromServer, `{"v":2,"type":"peer-left","peer":"0123456789abcdef"}`},
	{fromServer, `{"v":2,"type":"signal","peer":"0123456789abcdef","kind":"candidate","payload":{"candidate":"candidate:1 1 udp 1 127.0.0.1 5000 typ host"}}`},
	{fromServer, `{"v":2,"type":"error","code":"unknown-peer","message":"signaling: peer not in room","peer":"0123456789abcdef"}`},
}

// TestParseEnvelopeVersions: what version 2 added is refused in version 1
// and required in version 2; versions not spoken are their own error.
func TestParseEnvelopeVersions(t *testing.T) {
	for _, msg := range []string{
		`{"v":1,"type":"join","id":"0123456789abcdef","room":"lobby","peers":["fedcba9876543210"],"protocols":[1],"max":16384}`,
		`{"v":1,"type":"peer-joined","peer":"0123456789abcdef","protocol":1}`,
		`{"v":2,"type":"join","id":"0123456789abcdef","room":"lobby","peers":["fedcba9876543210"],"max":16384}`,
		`{"v":2,"type":"join","id":"0123456789abcdef","room":"lobby","peers":["fedcba9876543210"],"protocols":[1,2],"max":16384}`,
		`{"v":2,"type":"join","id":"0123456789abcdef","room":"lobby","peers":["fedcba9876543210"],"protocols":[3],"max":16384}`,
		`{"v":2,"type":"peer-joined","peer":"0123456789abcdef"}`,
		`{"v":2,"type":"peer-joined","peer":"0123456789abcdef","protocol":0}`,
		`{"v":2,"type":"peer-left","peer":"0123456789abcdef","protocol":2}`,
	} {
		_, err := parseEnvelope([]byte(msg), fromServer)
		require.ErrorIs(t, err, wire.ErrMalformed, msg)
		require.NotErrorIs(t, err, errProtocolVersion, msg)
	}
	for _, msg := range []string{`{"v":3,"type":"join"}`, `{"v":-1,"type":"join"}`} {
		_, err := parseEnvelope([]byte(msg), fromClient)
		require.ErrorIs(t, err, wire.ErrMalformed, msg)
		require.ErrorIs(t, err, errProtocolVersion, msg)
	}
}

func TestParseEnvelopeValid(t *testing.T) {
	for _, tc := range validEnvelopes {
		e, err := parseEnvelope([]byte(tc.msg), tc.dir)
		require.NoError(t, err, tc.msg)
		// Our encoder produces what the parser takes, byte for byte.
		b, err := json.Marshal(e)
		require.NoError(t, err)
		require.JSONEq(t, tc.msg, string(b))
	}
}

func TestParseEnvelopeDirection(t *testing.T) {
	// What only the server sends is malformed from a client, and back.
	for _, tc := range []struct {
		dir direction
		msg string
	}{
		{fromClient, `{"v":1,"type":"peer-joined","peer":"0123456789abcdef"}`},
		{fromClient, `{"v":1,"type":"error","code":"x","message":"y"}`},
		{fromClient, `{"v":1,"type":"join","id":"0123456789abcdef","room":"lobby","max":16384}`},
		{fromServer, `{"v":1,"type":"join"}`},
	} {
		_, err := parseEnvelope([]byte(tc.msg), tc.dir)
		require.ErrorIs(t, err, wire.ErrMalformed, tc.msg)
	}
}

func TestParseEnvelopeEveryPrefixFails(t *testing.T) {
	for _, tc := range validEnvelopes {
		for i := range len(tc.msg) {
			_, err := parseEnvelope([]byte(tc.msg[:i]), tc.dir)
			require.ErrorIs(t, err, wire.ErrMalformed, "%q", tc.msg[:i])
		}
	}
}

func TestValidNames(t *testing.T) {
	require.True(t, validID("0123456789abcdef"))
	for _, s := range []string{"", "0123456789abcde", "0123456789ABCDEF", "0123456789abcdeg", "0123456789abcdef0"} {
		require.False(t, validID(s), s)
	}
	require.True(t, validRoom("a"))
	require.True(t, validRoom("Lobby_1.two-3"))
	for _, s := range []string{"", "a b", "a/b", "é", "a\x00"} {
		require.False(t, validRoom(s), s)
	}
}

func FuzzParseEnvelope(f *testing.F) {
	for _, tc := range validEnvelopes {
		f.Add([]byte(tc.msg), tc.dir == fromServer)
	}
	f.Fuzz(func(t *testing.T, b []byte, server bool) {
		dir := fromClient
		if server {
			dir = fromServer
		}
		e, err := parseEnvelope(b, dir)
		if err != nil {
			require.ErrorIs(t, err, wire.ErrMalformed)
			return
		}
		// Whatever passes re-encodes to something that passes again, the
		// same.
		b2, err := json.Marshal(e)
		require.NoError(t, err)
		e2, err := parseEnvelope(b2, dir)
		require.NoError(t, err, "%s", b2)
		b3, err := json.Marshal(e2)
		require.NoError(t, err)
		require.Equal(t, string(b2), string(b3))
	})
}
