//go:build !js

package quic

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// PeerClaims gives the host the room and client of an admitted peer's
// token (a fleet host routes the peer to that room's match), and nothing
// for a peer it does not know or a host without tokens.
func TestPeerClaims(t *testing.T) {
	h, _ := tokenHost(t)
	c, err := dialGrant(h, grant(t, 7, func(c *connecttoken.Claims) { c.Room = "room-7" }))
	require.NoError(t, err)
	defer c.Close()
	cl, ok := h.PeerClaims(c.Local())
	require.True(t, ok)
	require.Equal(t, "room-7", cl.Room)
	require.Equal(t, uint64(7), cl.Client)
	_, ok = h.PeerClaims("client-8")
	require.False(t, ok, "an unknown peer")
	_, ok = c.PeerClaims(c.Host())
	require.False(t, ok, "a client has no tokens to show")

	open := listen(t, Config{})
	oc, err := dialGrant(open, nil)
	require.NoError(t, err)
	defer oc.Close()
	_, ok = open.PeerClaims(oc.Local())
	require.False(t, ok, "a host without Tokens")
}
