package p2p

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// TestP2PInitialStateWithSpectator: players and a spectator that set the
// same non-zero initial state agree on every frame (the cluster compares
// each node's checksums, the spectator's too); a spectator that does not
// set it is told by a desync at the first checksum frame. Issue 19 defect
// 4: the spectator's State said never write it, so a game whose initial
// state is not zero could not have agreeing spectators.
func TestP2PInitialStateWithSpectator(t *testing.T) {
	initial := p2pWorld{Acc: [4]uint32{1, 2, 3, 4}, H: 0xfeed}
	for _, spectatorSets := range []bool{true, false} {
		c := newCluster(t, clusterOpts{players: 2, spectators: 1, seed: 33, mash: 0.3,
			link: local.Link{Latency: 20 * time.Millisecond}, cfg: session.Config[uint16]{InputDelay: 2}})
		for _, n := range c.nodes {
			if n.p != nil {
				require.NoError(t, n.p.SetInitialState(initial))
			} else if spectatorSets {
				require.NoError(t, n.s.SetInitialState(initial))
			}
		}
		c.noSums = !spectatorSets
		c.frames(200, 20*time.Second)
		c.run(time.Second)
		spec := c.node("s0")
		e, desync := spec.first(rollnet.EventDesyncDetected)
		if spectatorSets {
			require.False(t, desync, "%v", spec.events)
			require.Greater(t, c.agreed(), 300)
			st := spec.s.PeerStats()
			require.Positive(t, st.ChecksumsAgreed)
			require.Equal(t, st.ChecksumsCompared, st.ChecksumsAgreed)
			hs, err := c.nodes[0].p.PeerStats("s0") // the spectator's checksums ride on its acks
			require.NoError(t, err)
			require.Positive(t, hs.ChecksumsAgreed)
			require.Equal(t, hs.ChecksumsCompared, hs.ChecksumsAgreed)
		} else {
			require.True(t, desync, "a spectator without the initial state disagrees")
			require.Equal(t, rollnet.Frame(10), e.Frame)
		}
		require.ErrorIs(t, c.nodes[0].p.SetInitialState(initial), ErrStarted)
		require.ErrorIs(t, spec.s.SetInitialState(initial), ErrStarted)
	}
}
