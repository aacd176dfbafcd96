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
