package session

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// feedCluster is two players whose host p0 keeps an archive of archive
// frames, every checksum kept for a late spectator to be compared with.
func feedCluster(t testing.TB, seed uint64, l local.Link, archive int, wrap func(int, transport.Transport) transport.Transport) *p2pCluster {
	c := newCluster(t, clusterOpts{players: 2, seed: seed, mash: 0.3, link: l,
		cfg: Config[uint16]{InputDelay: 2, Capacity: 32}, net: NetConfig{ChecksumInterval: 10}, wrap: wrap,
		mutate: func(i int, cfg *P2PConfig[uint16]) {
			if i == 0 {
				cfg.SpectatorArchive = archive
			}
		}})
	c.keepSums = true
	return c
}

// joinLate adds a spectator called name to p0 and starts it with the
// default FastForward, holding enough states (Capacity) that every frame
// it fast-forwards through can be compared with the players'.
func (c *p2pCluster) joinLate(name string, wrap func(transport.Transport) transport.Transport) *p2pNode {
	c.t.Helper()
	require.NoError(c.t, c.nodes[0].p.AddSpectator(transport.Peer(name)))
	ep, err := c.net.Endpoint(name)
	require.NoError(c.t, err)
	var tr transport.Transport = ep
	if wrap != nil {
		tr = wrap(ep)
	}
	nc := NetConfig{Now: c.clock.Now, Rand: rand.New(rand.NewPCG(9, uint64(len(c.nodes)))).Uint64, ChecksumInterval: 10}
	sp, err := NewSpectator[p2pWorld, uint16](SpectatorConfig{Players: 2, InputDelay: 2, Capacity: 4096, Host: "p0", Net: nc}, tr, simP2P)
	require.NoError(c.t, err)
	n := &p2pNode{name: name, ep: ep, s: sp, checked: 1, period: time.Second / 60, next: c.clock.Now()}
	c.nodes = append(c.nodes, n)
	return n
}

// live runs until spectator n is within a few frames of the host's
// confirmed frame and returns how long that took.
func (c *p2pCluster) live(n *p2pNode, limit time.Duration) time.Duration {
	start := c.clock.Now()
	host := c.nodes[0].p
	at := c.until(limit, n.name+" live", func() bool { return n.s.Frame() >= host.ConfirmedFrame()-4 })
	return at.Sub(start)
}

// A spectator that joins a match 36,000 frames in (10 minutes at 60 fps),
// over a lossy, reordering 40 ms round trip, replays it in bulk and agrees
// with the players on every frame it simulates (the cluster compares each
// frame's checksum with the players'; their spectator checksums ride to the
// host too), in about a second; the host's feed stays within its budget.
func TestSpectatorFeedLate36000(t *testing.T) {
	const frames = 36000
	c := feedCluster(t, 81, local.Link{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05,
		Reorder: 0.05, Duplicate: 0.02}, frames+1000, nil)
	c.frames(frames, 20*time.Minute)
	spec := c.joinLate("late", nil)
	agreed := c.agreed
	took := c.live(spec, 10*time.Second)
	t.Logf("36,000 frames in, 40 ms lossy: live after %v", took)
	require.Less(t, took, 3*time.Second)
	require.Greater(t, c.agreed-agreed, frames/2, "the frames it fast-forwarded were compared")
	c.frames(int(c.nodes[0].p.Frame())+120, 10*time.Second)
	st, err := c.nodes[0].p.PeerStats("late")
	require.NoError(t, err)
	require.Greater(t, st.ChecksumsCompared, uint64(5), "the host compared its checksums")
	require.Equal(t, st.ChecksumsCompared, st.ChecksumsAgreed)
	require.Less(t, st.BytesSent, uint64(frames*4*3), "the host sent each frame's inputs about once")
	require.False(t, spec.s.CatchingUp())
	require.Less(t, spec.s.Behind(), 4)
}
