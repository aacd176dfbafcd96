package netplay

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/greeting"
)

// TestHostDriverLeavesChecksToClients: a host refuses no one (a client,
// or a P2P peer, in its room fails on its own), and knows a sender's slot
// from its hello until it has a session.
func TestHostDriverLeavesChecksToClients(t *testing.T) {
	m := testMatch()
	d := newHost(m, true)
	require.Equal(t, ModeHost, d.mode())
	require.Equal(t, greeting.RoleHost, d.greetsAs())
	for _, r := range []greeting.Role{greeting.RolePlayer, greeting.RoleSpectator, greeting.RoleClient, greeting.RoleHost} {
		require.NoError(t, d.check(heard(m, "x", r, greeting.NoSeat, 8)), r)
	}
	require.Equal(t, 1, d.seatOf(heard(m, "c", greeting.RoleClient, 1, 7), "c"))
	require.Empty(t, d.rosterFrom())
	require.Empty(t, d.seatPeer(1))
}

// TestHostOrConnectChooses: the first peer in the room hosts (a listen
// host); a later one is a client, and plays no slot of its own.
func TestHostOrConnectChooses(t *testing.T) {
	m := testMatch()
	m.cfg.LocalPlayers = 1
	require.Equal(t, ModeHost, newHostOrClient(m, true).mode())
	require.Equal(t, 1, m.cfg.LocalPlayers)
	require.Equal(t, ModeClient, newHostOrClient(m, false).mode())
	require.Zero(t, m.cfg.LocalPlayers)
}
