package webrtc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPathOf(t *testing.T) {
	for _, c := range []struct {
		local, remote string
		path          string
	}{
		{"host", "host", pathDirect},
		{"host", "prflx", pathSTUN},
		{"srflx", "host", pathSTUN},
		{"srflx", "prflx", pathSTUN},
		{"relay", "host", pathRelay},
		{"host", "relay", pathRelay},
		{"relay", "relay", pathRelay},
		{"", "host", ""},
		{"host", "", ""},
	} {
		require.Equal(t, c.path, pathOf(c.local, c.remote), "%s to %s", c.local, c.remote)
	}
	require.Equal(t, "relay over TCP (relay to prflx)",
		peerInfo{Path: pathRelay, Protocol: "tcp", LocalCandidate: "relay", RemoteCandidate: "prflx"}.Route())
	require.Equal(t, "stun over ? (srflx to srflx)",
		peerInfo{Path: pathSTUN, LocalCandidate: "srflx", RemoteCandidate: "srflx"}.Route())
	require.Empty(t, peerInfo{}.Route(), "nothing selected yet")
}
