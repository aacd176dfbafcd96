package allocs_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
)

var sink []byte

// An allocation on one run in ten is 0 to AllocsPerRun and 10 to Total.
func TestTotalSeesRareAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("-race allocates")
	}
	n := 0
	rare := func() {
		n++
		if n%10 == 0 {
			sink = make([]byte, 64+n%3)
		}
	}
	require.Zero(t, testing.AllocsPerRun(100, rare), "the integer mean hides them")
	n = 0
	require.EqualValues(t, 10, allocs.Total(100, rare))
	require.Zero(t, allocs.Total(100, func() { n++ }))
}
