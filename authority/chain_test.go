package authority

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/transport/local"
)

// chainRun is what a match of four clients pressing twice a second each
// did over link for d: states the clients took and dropped, the bytes the
// host sent them, and the states sent chained (coded against the previous
// one sent).
type chainRun struct {
	applied, dropped, sent, chained, bytes uint64
	checked                                int
}

func runChain(t *testing.T, link local.Link, d time.Duration, noChain bool) chainRun {
	c := newCluster(t, clusterOpts{seed: 7, players: 4, link: link})
	c.h.s.noChain = noChain
	for i := range 4 {
		c.add(string(rune('a'+i)), ClientConfig{}, func(f rollnet.Frame) uint16 { return uint16((int(f)+i*7)/30*31+i) & 0x0303 })
	}
	c.run(d)
	var r chainRun
	for _, nd := range c.nodes {
		s := nd.c.Stats()
		r.applied += s.StatesApplied
		r.dropped += s.StatesDropped
	}
	for _, hc := range c.h.clients {
		r.sent += hc.stats.StatesSent
		r.chained += hc.chainedN
		r.bytes += hc.l.Stats().BytesSent
	}
	r.checked = c.checked
	return r
}

// TestChainOverLoss: the host codes states against the previous one sent
// on a clean link and against a client's acknowledgements on a lossy one.
// Over 45 ± 20 ms with 5% loss each way the chain stays off and the
// clients take as many states as when it is never tried; over a link that
// loses 0.5% it is tried, breaks, and costs few states; on a clean one
// nearly every state is chained. Every host state a client took agrees
// with the host's (the cluster checks each).
func TestChainOverLoss(t *testing.T) {
	lossy := local.Link{Latency: 45 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.05}
	acked := runChain(t, lossy, 30*time.Second, true)
	chain := runChain(t, lossy, 30*time.Second, false)
	t.Logf("5%% loss, acknowledged bases: %+v", acked)
	t.Logf("5%% loss, chain:              %+v", chain)
	require.Zero(t, acked.chained)
	require.Greater(t, chain.checked, 4000, "host states checked against the host's")
	require.GreaterOrEqual(t, float64(chain.applied), 0.99*float64(acked.applied), "the chain over a lossy link costs states")

	light := local.Link{Latency: 40 * time.Millisecond, Loss: 0.005}
	acked = runChain(t, light, 30*time.Second, true)
	chain = runChain(t, light, 30*time.Second, false)
	t.Logf("0.5%% loss, acknowledged bases: %+v", acked)
	t.Logf("0.5%% loss, chain:              %+v", chain)
	require.NotZero(t, chain.chained, "the chain was never tried")
	require.GreaterOrEqual(t, float64(chain.applied), 0.97*float64(acked.applied), "the chain over a link losing 0.5%% costs states")

	clean := runChain(t, local.Link{Latency: 45 * time.Millisecond}, 20*time.Second, false)
	t.Logf("clean link, chain:            %+v", clean)
	require.Greater(t, float64(clean.chained), 0.85*float64(clean.sent), "a clean link's states go chained")
	require.LessOrEqual(t, clean.dropped, uint64(4), "a clean link's client drops at most a copy of its first state")
}
