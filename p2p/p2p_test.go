package p2p

import (
	"fmt"
	"testing"
	"time"

	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

func TestP2PTwoPlayersPerfectLink(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 2, seed: 1, mash: 0.2, cfg: session.Config[uint16]{InputDelay: 2, Capacity: 32},
		link: local.Link{Latency: 20 * time.Millisecond}})
	c.frames(600, 30*time.Second)
	require.Greater(t, c.agreed(), 500)
	t.Logf("agreed %d; %s; stats %+v", c.agreed(), c.describe(), c.nodes[0].p.Stats())
}

// p2pProfiles are issue 5's link profiles.
var p2pProfiles = []struct {
	name string
	link local.Link
}{
	{"40ms", local.Link{Latency: 40 * time.Millisecond, Jitter: 6 * time.Millisecond, Loss: 0.002}},
	{"100ms", local.Link{Latency: 100 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.02}},
	{"200ms", local.Link{Latency: 200 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.10}},
}

// TestP2PAgreement runs 2, 3 and 4 players and a spectator over every link
// profile, with and without duplication and reordering: every frame
// confirmed on two nodes has the same checksum on both, spectator included.
func TestP2PAgreement(t *testing.T) {
	frames := 3000
	if race.Enabled || testing.Short() {
		frames = 2000 // the race detector slows this 30 times
	}
	for _, players := range []int{2, 3, 4} {
		for _, prof := range p2pProfiles {
			for _, messy := range []bool{false, true} {
				name := prof.name
				link := prof.link
				if messy {
					name += "+dup+reorder"
					link.Duplicate = 0.05
					link.Reorder = 0.05
				}
				t.Run(fmt.Sprintf("%dp/%s", players, name), func(t *testing.T) {
					c := newCluster(t, clusterOpts{players: players, spectators: 1, seed: uint64(players*10 + len(name)),
						mash: 0.1, link: link, cfg: session.Config[uint16]{InputDelay: 2, Capacity: 64}})
					c.frames(frames, time.Duration(frames)*time.Second/10)
					spec := c.nodes[len(c.nodes)-1]
					require.Greater(t, int(spec.s.Frame()), frames/2, "spectator keeps up: %s", c.describe())
					require.Greater(t, c.agreed(), frames*players/2)
					st := c.nodes[0].p.Stats()
					t.Logf("agreed %d frames; rollbacks %d (max depth %d); %s", c.agreed(), st.Rollbacks, st.MaxRollbackDepth, c.describe())
				})
			}
		}
	}
}
