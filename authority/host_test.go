package authority

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/transport/local"
)

func mash(seed uint16, every rollnet.Frame) func(rollnet.Frame) uint16 {
	return func(f rollnet.Frame) uint16 { return uint16(uint32(f/every)*2654435761>>13) ^ seed }
}

func TestHostClientQuiet(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 1, players: 2, link: local.Link{Latency: 20 * time.Millisecond}})
	a := c.add("a", ClientConfig{}, mash(1, 7))
	b := c.add("b", ClientConfig{}, mash(2, 5))
	c.run(10 * time.Second)
	for _, nd := range []*node{a, b} {
		st := nd.c.Stats()
		t.Logf("%s: %+v", nd.name, st)
		require.True(t, st.Synchronized)
	}
	for _, s := range c.h.Clients(nil) {
		t.Logf("host view: %+v", s)
	}
	t.Logf("host: %+v checked %d", c.h.Stats(), c.checked)
	require.Greater(t, c.checked, 500)
}

// A listen server (one slot of the host's own) with clients of two slots
// each: every client drives only its own, and every state applied is the
// host's.
func TestListenServerTwoSlotsPerClient(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 2, players: 5, locals: 1, host: HostConfig[uint16]{SlotsPerClient: 2},
		link: local.Link{Latency: 25 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02}})
	c.hinput = mash(9, 6)
	a := c.add("a", ClientConfig{}, mash(1, 4))
	b := c.add("b", ClientConfig{}, mash(2, 5))
	c.run(5 * time.Second)
	require.ElementsMatch(t, []int{1, 3}, []int{a.c.Stats().First, b.c.Stats().First}, "slot 0 is the host's")
	for _, nd := range []*node{a, b} {
		st := nd.c.Stats()
		require.Equal(t, 2, st.Slots)
		require.NoError(t, nd.c.AddLocalInput(1, 77))
		require.ErrorIs(t, nd.c.AddLocalInput(2, 1), ErrSlot)
	}
	c.run(5 * time.Second)
	// The second slot of each client took the 77 it was given; the host's
	// own slot moved by its input.
	w := c.h.State()
	for _, nd := range []*node{a, b} {
		first := nd.c.Stats().First
		require.NotEqual(t, int32(0), w.Pos[first+1], "slot %d moved", first+1)
	}
	require.ErrorIs(t, c.h.AddLocalInput(1, 0), ErrSlot)
	require.Greater(t, c.checked, 800)
}

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
	f := rollnet.Frame(0)
	// Counted over all 300 ticks (AllocsPerRun's integer mean per run would
	// hide an allocation made on fewer than all of them).
	allocs := testing.AllocsPerRun(1, func() {
		for range 300 {
			c.clock.Advance(tick)
			f++
			_ = c.h.AddLocalInput(0, uint16(f/4))
			_ = c.h.AdvanceFrame()
			_ = a.c.AddLocalInput(0, uint16(f/3))
			_, _ = a.c.Update(tick)
			_ = b.c.AddLocalInput(0, uint16(f/5))
			_ = b.c.AdvanceFrame()
		}
	})
	require.Zero(t, allocs)
	st := a.c.Stats()
	require.NotZero(t, st.Mismatches)
	require.NotZero(t, st.Matches)
}

// Corrected reports a step of the last Update that re-simulated.
func TestCorrectedFlag(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 8, players: 2, link: local.Link{Latency: 30 * time.Millisecond}})
	a := c.add("a", ClientConfig{}, func(rollnet.Frame) uint16 { return 1 })
	b := c.add("b", ClientConfig{}, mash(2, 3)) // changes: a mispredicts it
	c.run(3 * time.Second)
	b.cut = true
	seen := 0
	for range 300 {
		c.clock.Advance(tick)
		before := a.c.Stats().Mismatches
		_ = c.h.AdvanceFrame()
		_ = b.c.AddLocalInput(0, uint16(c.h.Frame()/3))
		_ = b.c.AdvanceFrame()
		_, err := a.c.Update(tick)
		require.NoError(t, err)
		require.Equal(t, a.c.Stats().Mismatches > before, a.c.Corrected())
		if a.c.Corrected() {
			seen++
		}
	}
	require.Greater(t, seen, 10)
}
