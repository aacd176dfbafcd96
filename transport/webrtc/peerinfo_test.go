package webrtc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPathOf(t *testing.T) {
	for _, c := range []struct {
		local, remote string
		path          Path
	}{
		{"host", "host", PathDirect},
		{"host", "prflx", PathSTUN},
		{"srflx", "host", PathSTUN},
		{"srflx", "prflx", PathSTUN},
		{"relay", "host", PathRelay},
		{"host", "relay", PathRelay},
		{"relay", "relay", PathRelay},
		{"", "host", ""},
		{"host", "", ""},
	} {
		require.Equal(t, c.path, pathOf(c.local, c.remote), "%s to %s", c.local, c.remote)
	}
	require.Equal(t, "relay over TCP (relay to prflx)",
		PeerInfo{Path: PathRelay, Protocol: "tcp", LocalCandidate: "relay", RemoteCandidate: "prflx"}.Route())
	require.Equal(t, "stun over ? (srflx to srflx)",
		PeerInfo{Path: PathSTUN, LocalCandidate: "srflx", RemoteCandidate: "srflx"}.Route())
	require.Empty(t, PeerInfo{}.Route(), "nothing selected yet")
}
