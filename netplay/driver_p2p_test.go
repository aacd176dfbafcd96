package netplay

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/transport"
)

// TestP2PDriverChecksTheRoom: a P2P player refuses a host's room and a
// player of other settings among the peers that were in the room before
// it, leaves clients and spectators to check themselves, takes a later
// peer's claim to be a host for a stranger's, and announces itself a
// rejoiner while it comes back.
func TestP2PDriverChecksTheRoom(t *testing.T) {
	m := testMatch()
	m.link.atJoin = []transport.Peer{"h", "p", "q", "c", "s"}
	d := newP2P(m, false)
	later := heard(m, "h2", greeting.RoleHost, greeting.NoSeat, 7)
	require.NoError(t, d.check(later), "a host that came later is a stranger")
	require.True(t, later.stranger)
	require.NoError(t, d.check(heard(m, "p2", greeting.RolePlayer, greeting.NoSeat, 8)), "the seating judges a later player")
	require.Equal(t, uint64(1), m.Stats().Strangers)
	require.Equal(t, ModeP2P, d.mode())
	require.ErrorIs(t, d.check(heard(m, "h", greeting.RoleHost, greeting.NoSeat, 7)), ErrAuthorityRoom)
	require.ErrorIs(t, d.check(heard(m, "p", greeting.RolePlayer, greeting.NoSeat, 8)), ErrSettings)
	require.NoError(t, d.check(heard(m, "q", greeting.RolePlayer, greeting.NoSeat, 7)))
	require.NoError(t, d.check(heard(m, "c", greeting.RoleClient, greeting.NoSeat, 8)))
	require.NoError(t, d.check(heard(m, "s", greeting.RoleSpectator, greeting.NoSeat, 8)))
	require.Equal(t, greeting.RolePlayer, d.greetsAs())
	m.tok.rejoining = true
	require.Equal(t, greeting.RoleRejoiner, d.greetsAs())
	require.False(t, d.built())
}

// TestP2PDriverSeats: the seats' peers come from the hellos, this
// player's own seat excepted; a player's name is taken at its seat.
func TestP2PDriverSeats(t *testing.T) {
	m := testMatch()
	m.seat = 0
	d := newP2P(m, false)
	d.admit(heard(m, "me", greeting.RolePlayer, 0, 7))
	d.admit(heard(m, "bob", greeting.RolePlayer, 1, 7))
	require.Equal(t, "bob", string(d.seatPeer(1)))
	require.Empty(t, d.seatPeer(0), "this player's own seat")
	require.Equal(t, "bob", m.names[1])
	require.Equal(t, 1, d.seatOf(m.peers.byID["bob"], "bob"))
}
