package netplay

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/greeting"
)

// TestClientDriverChecksTheHost: a client refuses a P2P room and a host
// of other settings, ignores other clients, and once it is a client its
// transport accepts its host alone.
func TestClientDriverChecksTheHost(t *testing.T) {
	m := testMatch()
	require.True(t, m.gate.accept("anyone"), "not a client yet")
	d := newClient(m, false)
	require.Equal(t, ModeClient, d.mode())
	require.Equal(t, greeting.RoleClient, d.greetsAs())
	require.ErrorIs(t, d.check(heard(m, "p", greeting.RolePlayer, 0, 7)), ErrP2PRoom)
	require.ErrorIs(t, d.check(heard(m, "s", greeting.RoleSpectator, greeting.NoSeat, 7)), ErrP2PRoom)
	require.NoError(t, d.check(heard(m, "c", greeting.RoleClient, greeting.NoSeat, 8)))
	require.ErrorIs(t, d.check(heard(m, "h8", greeting.RoleHost, greeting.NoSeat, 8)), ErrSettings)
	require.NoError(t, d.check(heard(m, "h", greeting.RoleHost, greeting.NoSeat, 7)))
	require.True(t, m.gate.accept("anyone"), "any peer until the host is known")
	m.gate.host = "h"
	require.True(t, m.gate.accept("h"))
	require.False(t, m.gate.accept("anyone"), "the host alone once known")
	require.Equal(t, "h", string(d.rosterFrom()))
}
