package authority

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/transport/local"
)

// The three link profiles of the issue, each way, with duplicates and
// reordering on top.
var profiles = []local.Link{
	{Latency: 40 * time.Millisecond, Jitter: 6 * time.Millisecond, Loss: 0.002, Duplicate: 0.01, Reorder: 0.01, ReorderDelay: 10 * time.Millisecond},
	{Latency: 100 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.02, Duplicate: 0.01, Reorder: 0.01, ReorderDelay: 20 * time.Millisecond},
	{Latency: 200 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.10, Duplicate: 0.01, Reorder: 0.01, ReorderDelay: 30 * time.Millisecond},
	{Latency: 40 * time.Millisecond, Jitter: 6 * time.Millisecond, Loss: 0.002, Duplicate: 0.01, Reorder: 0.01, ReorderDelay: 10 * time.Millisecond},
}

// Four clients over the three profiles, thousands of frames: every host
// state a client applied equals the host's for that frame (checked on every
// one by the cluster). Phase one: only client 0's inputs change, so once
// its buffer covers its latency it never mispredicts. Phase two: the others
// change theirs once; every client's mismatches stop within a round trip.
func TestFourClientsThreeProfiles(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 7, players: 4, host: HostConfig[uint16]{TargetDepth: 3}})
	m := mash(1, 3)
	frozen := false
	changing := func(f rollnet.Frame) uint16 {
		if frozen {
			return 1
		}
		return m(f)
	}
	var still uint16 = 5
	other := func(rollnet.Frame) uint16 { return still }
	for i, p := range profiles {
		name := string(rune('a' + i))
		require.NoError(t, c.net.SetLink(name, "host", p))
		require.NoError(t, c.net.SetLink("host", name, p))
		in := other
		if i == 0 {
			in = changing
		}
		c.add(name, ClientConfig{TargetDepth: 3}, in)
	}
	c.run(10 * time.Second) // join and settle
	for _, nd := range c.nodes {
		require.True(t, nd.c.Synchronized(), nd.name)
	}
	before := c.nodes[0].c.Stats()
	c.run(40 * time.Second)
	after := c.nodes[0].c.Stats()
	require.Equal(t, before.Mismatches, after.Mismatches, "client 0's own inputs alone change: no mismatch once settled")
	require.Greater(t, after.Matches-before.Matches, uint64(2000))

	// Client 0 holds still and the others change their input once: each
	// client mismatches, then converges within a round trip (of the
	// changer's link and its own: at most 2×(200+30) ms here, so one
	// second is generous).
	frozen = true
	c.run(time.Second)
	settled := make([]ClientStats, len(c.nodes))
	for i, nd := range c.nodes {
		settled[i] = nd.c.Stats()
	}
	still = 9
	c.run(time.Second)
	mid := make([]ClientStats, len(c.nodes))
	for i, nd := range c.nodes {
		mid[i] = nd.c.Stats()
	}
	c.run(20 * time.Second)
	for i, nd := range c.nodes {
		st := nd.c.Stats()
		t.Logf("%s: %+v", nd.name, st)
		require.Equal(t, mid[i].Mismatches, st.Mismatches, "%s: mismatches after convergence", nd.name)
		if i > 0 {
			require.Greater(t, mid[i].Mismatches, settled[i].Mismatches, "%s: the others' change was noticed", nd.name)
		}
	}
	for _, s := range c.h.Clients(nil) {
		t.Logf("host view: %+v", s)
		require.Less(t, s.Rate, 0.101)
		require.Greater(t, s.Rate, -0.101)
	}
	t.Logf("host: %+v, %d host states checked", c.h.Stats(), c.checked)
	require.Greater(t, c.checked, 4*3000*8/10)
}
