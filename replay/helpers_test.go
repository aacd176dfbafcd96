package replay

import (
	"testing"

	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/internal/testkit"
)

// world is the test games' state (the test kit's Mixer): a PRNG and
// accumulators that mix every input strongly, so any wrong input on any
// frame shows in the checksum.
type world = testkit.Mixer

// simWorld is never inlined, so that the step benchmarks' baseline calls
// it as the session does.
var simWorld = testkit.SimulateMixer

func skipUnderRace(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
}
