package p2p

import (
	"testing"

	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/session"
	"github.com/stretchr/testify/require"
)

// world is the test games' state (the test kit's Mixer), as in package
// session's tests.
type world = testkit.Mixer

// simWorld simulates a world.
var simWorld = testkit.SimulateMixer

// worldSum is the checksum a session computes of a world.
func worldSum(w *world) uint32 { return rollback.Checksum(rollback.BytesOf(w)) }

// newWorld returns a core session of the test world.
func newWorld(t testing.TB, cfg session.Config[uint16]) *session.Session[world, uint16] {
	t.Helper()
	s, err := session.New[world](cfg, simWorld)
	require.NoError(t, err)
	return s
}

// skipUnderRace skips allocation tests under the race detector, which
// allocates.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if race.Enabled {
		t.Skip("allocation counts are meaningless under -race")
	}
}
