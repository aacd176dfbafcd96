package authority

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// TestClientRepairedByHost: in the authoritative mode the host is the
// truth. A client whose simulation goes wrong for five frames (a fault in
// the test's simulation only) takes the host's next state for those
// frames, simulates again from it, and from then on predicts every host
// state exactly (no mismatch more), over 60 ± 10 ms one way with 3% loss;
// the match goes on and every host state it takes is the host's (the
// harness checks each one's checksum against the host's).
func TestClientRepairedByHost(t *testing.T) {
	const plant = 400
	c := newCluster(t, clusterOpts{seed: 41, players: 2,
		link: local.Link{Latency: 60 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.03}})
	one := func(rollnet.Frame) uint16 { return 1 }
	c.add("b", ClientConfig{}, one)
	// Client a, whose simulation is wrong for frames [plant, plant+5).
	ep, err := c.net.Endpoint("a")
	require.NoError(t, err)
	seed := uint64(7)
	cfg := ClientConfig{Host: "host", Players: 2, Net: rollnet.NetConfig{Now: c.clock.Now,
		Tuning: rollnet.NetTuning{Rand: func() uint64 { seed = seed*6364136223846793005 + 1442695040888963407; return seed }}}}
	faulty := func(w *world, in []uint16, f rollnet.Frame) {
		testkit.SimulateArena(w, in, f)
		if f >= plant && f < plant+5 {
			w.Acc[5] += 3 // the fault
		}
	}
	cl, err := NewClient[world, uint16](cfg, ep, faulty)
	require.NoError(t, err)
	a := &node{name: "a", ep: ep, c: cl, input: one, next: c.clock.Now(), seen: rollnet.NoFrame, joinAt: c.clock.Now()}
	c.nodes = append(c.nodes, a)
	c.loops = append(c.loops, clientLoop{c, a})

	c.run(5 * time.Second)
	require.Less(t, int(a.c.Frame()), plant-30, "the fault is ahead")
	before := a.c.Stats()
	for a.c.Frame() < plant+60 {
		c.run(time.Second / 4)
	}
	hit := a.c.Stats()
	require.Greater(t, hit.Mismatches, before.Mismatches, "the host's states for the wrong frames differed: taken")
	c.run(10 * time.Second)
	after := a.c.Stats()
	require.Equal(t, hit.Mismatches, after.Mismatches, "every later host state is what the client predicted")
	require.Greater(t, after.Matches-hit.Matches, uint64(300), "and there were many")
	require.Greater(t, c.checked, 600, "host states checked against the host's")
	t.Logf("mismatches %d before the fault, %d after it, %d 10 s later; %d matches since", before.Mismatches, hit.Mismatches, after.Mismatches, after.Matches-hit.Matches)
}
