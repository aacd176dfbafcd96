package authority

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/transport/local"
)

// A host tick and a client tick allocate nothing at steady state: over a
// lossy, jittery link with states delta-coded, fragments, Nacks, late
// inputs, mismatches and re-simulation all happening.
func TestTicksAllocateNothing(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	link := local.Link{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05, Duplicate: 0.02, Reorder: 0.02, ReorderDelay: 10 * time.Millisecond}
	c := newCluster(t, clusterOpts{seed: 5, players: 3, locals: 1, link: link})
	c.hinput = mash(7, 4)
	a := c.add("a", ClientConfig{}, mash(1, 3))
	b := c.add("b", ClientConfig{}, mash(2, 5))
	c.run(5 * time.Second)
	require.True(t, a.c.Synchronized())
	require.True(t, b.c.Synchronized())
	f := Frame(0)
	allocs := testing.AllocsPerRun(300, func() {
		c.clock.Advance(tick)
		f++
		_ = c.h.AddLocalInput(0, uint16(f/4))
		_ = c.h.Advance()
		_ = a.c.AddLocalInput(0, uint16(f/3))
		_, _ = a.c.Update(tick)
		_ = b.c.AddLocalInput(0, uint16(f/5))
		_ = b.c.Advance()
	})
	require.Zero(t, allocs)
	st := a.c.Stats()
	require.NotZero(t, st.Mismatches)
	require.NotZero(t, st.Matches)
}

// Corrected reports a step of the last Update that re-simulated.
func TestCorrectedFlag(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 8, players: 2, link: local.Link{Latency: 30 * time.Millisecond}})
	a := c.add("a", ClientConfig{}, func(Frame) uint16 { return 1 })
	b := c.add("b", ClientConfig{}, mash(2, 3)) // changes: a mispredicts it
	c.run(3 * time.Second)
	b.cut = true
	seen := 0
	for range 300 {
		c.clock.Advance(tick)
		before := a.c.Stats().Mismatches
		_ = c.h.Advance()
		_ = b.c.AddLocalInput(0, uint16(c.h.Frame()/3))
		_ = b.c.Advance()
		_, err := a.c.Update(tick)
		require.NoError(t, err)
		require.Equal(t, a.c.Stats().Mismatches > before, a.c.Corrected())
		if a.c.Corrected() {
			seen++
		}
	}
	require.Greater(t, seen, 10)
}
