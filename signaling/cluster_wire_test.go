package signaling

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/signaling/internal/wire"
)

func TestRelayRoundTrip(t *testing.T) {
	sig := appendSignal(nil, wire.ProtocolVersion, "0123456789abcdef", client.SignalOffer, []byte(`{"sdp":"<x>"}`))
	b := appendRelay(nil, "fedcba9876543210", "0123456789abcdef", true, "lobby.1", sig)
	m, err := parseRelay(b, len(sig))
	require.NoError(t, err)
	require.Equal(t, relayMsg{to: "fedcba9876543210", from: "0123456789abcdef", room: "lobby.1", free: true, signal: sig}, m)
	_, err = parseRelay(b, len(sig)-1)
	require.ErrorIs(t, err, errRelay, "over the size limit")
	for i := range b[:relayOverhead+len("lobby.1")] {
		_, err := parseRelay(b[:i], len(sig))
		require.ErrorIs(t, err, errRelay, "truncated to %d", i)
	}
}

// FuzzParseRelay: whatever NATS delivers, parseRelay returns an error or
// a relay whose fields are valid, and never panics.
func FuzzParseRelay(f *testing.F) {
	sig := appendSignal(nil, wire.ProtocolVersion, "0123456789abcdef", client.SignalCandidate, []byte(`{"candidate":"c"}`))
	f.Add(appendRelay(nil, "fedcba9876543210", "0123456789abcdef", false, "r", sig))
	f.Add(appendRelay(nil, "fedcba9876543210", "0123456789abcdef", true, "next2-0123456789abcdef", sig))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseRelay(b, 1024)
		if err != nil {
			return
		}
		if !validID(m.to) || !validID(m.from) || !validRoom(m.room) || len(m.signal) == 0 || len(m.signal) > 1024 {
			t.Fatalf("accepted %q as %+v", b, m)
		}
		require.Equal(t, b, appendRelay(nil, m.to, m.from, m.free, m.room, m.signal))
	})
}
