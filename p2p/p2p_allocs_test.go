package p2p

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// TestP2PAllocsAdvanceFrame: at steady state a tick of every peer and a
// spectator (AddLocalInput, AdvanceFrame with rollbacks, sends, receives,
// acks, quality reports, checksums) allocates nothing; nor does a spectator
// added mid-match, replaying the match out of the host's archive.
func TestP2PAllocsAdvanceFrame(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	for _, players := range []int{2, 4} {
		c := newCluster(t, clusterOpts{players: players, spectators: 1, seed: 20, mash: 0.3,
			link: local.Link{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.01},
			cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 32}, net: rollnet.NetConfig{ChecksumInterval: 10},
			mutate: func(i int, cfg *Config[uint16]) { cfg.SpectatorArchive = 4096 }})
		c.frames(1000, time.Minute)
		require.NoError(t, c.nodes[0].p.AddSpectator("late"))
		late := c.joinSpectator("late", "p0", 2, nil)
		late.s.fast = 1    // it stays far behind: the host keeps feeding it
		c.run(time.Second) // its handshake
		c.noSums = true
		for _, n := range c.nodes {
			n.events = make([]rollnet.Event, 0, 1<<14)
		}
		allocs.RequireZero(t, 600, func() { c.run(time.Second / 60) }, "%d players", players)
		st := c.nodes[0].p.Stats()
		require.Positive(t, st.Rollbacks, "the run exercised rollbacks")
		require.Greater(t, late.s.Behind(), 100, "the late spectator still replays out of the archive")
	}
}
