package netplay

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/transport"
)

// TestSpectatorDriverFindsSeatZero: a spectator checks the room as a P2P
// player does, takes its roster from the seat-0 player alone, and names
// the seats' peers from their hellos.
func TestSpectatorDriverFindsSeatZero(t *testing.T) {
	m := testMatch()
	m.link.atJoin = []transport.Peer{"h"}
	d := newSpectator(m, false)
	require.Equal(t, ModeSpectator, d.mode())
	require.Equal(t, greeting.RoleSpectator, d.greetsAs())
	require.ErrorIs(t, d.check(heard(m, "h", greeting.RoleHost, greeting.NoSeat, 7)), ErrAuthorityRoom)
	require.Empty(t, d.rosterFrom(), "no seat 0 heard yet")
	d.admit(heard(m, "bob", greeting.RolePlayer, 1, 7))
	d.admit(heard(m, "alice", greeting.RolePlayer, 0, 7))
	require.Equal(t, "alice", string(d.rosterFrom()))
	require.Equal(t, "bob", string(d.seatPeer(1)))
	require.Equal(t, []string{"alice", "bob"}, m.names)
}
