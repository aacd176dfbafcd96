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
// one sent), and the states the clients took after waiting for their base
// (early).
type chainRun struct {
	applied, dropped, sent, chained, bytes, early uint64
	checked                                       int
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
		r.early += nd.c.earlyN
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
// Over 45 ± 20 ms with 5% loss each way the chain is tried seldom (the
// host hears its clients' packets go missing) and the clients take about
// as many states as when it is never tried; over a link that
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

// TestChainOverJitter: over links that lose nothing but deliver out of
// order (45 ± 15 ms and 45 ± 30 ms each way, and 2% of datagrams held back
// 25 ms), the chain starts and holds. A state that overtakes its base
// waits among the client's early states and is taken when its base comes;
// the host reads its acknowledgements' stalls and jumps against their
// recent spread, and counts as a loss only a client's packet that never
// came. Nearly every state goes chained, the clients take as many states
// as with acknowledged bases, for fewer bytes; every state a client took
// agrees with the host's (the cluster checks each).
func TestChainOverJitter(t *testing.T) {
	for _, l := range []local.Link{
		{Latency: 45 * time.Millisecond, Jitter: 15 * time.Millisecond},
		{Latency: 45 * time.Millisecond, Jitter: 30 * time.Millisecond},
		{Latency: 45 * time.Millisecond, Reorder: 0.02, ReorderDelay: 25 * time.Millisecond},
	} {
		acked := runChain(t, l, 30*time.Second, true)
		chain := runChain(t, l, 30*time.Second, false)
		t.Logf("%v ± %v, %.0f%% held back: acknowledged bases %+v", l.Latency, l.Jitter, 100*l.Reorder, acked)
		t.Logf("%v ± %v, %.0f%% held back: chain              %+v", l.Latency, l.Jitter, 100*l.Reorder, chain)
		require.Greater(t, float64(chain.chained), 0.75*float64(chain.sent), "its states go chained (after four seconds without a loss)")
		require.NotZero(t, chain.early, "states that came before their base")
		require.GreaterOrEqual(t, chain.applied, acked.applied, "the chain costs no states")
		require.Less(t, chain.bytes, acked.bytes)
		require.Greater(t, chain.checked, 2000, "host states checked against the host's")
	}
}

// heardSeq counts a client's packet lost once 32 newer ones came and it
// did not: a packet overtaken by a few is not lost, one that never comes
// is, once.
func TestHeardSeqCountsLosses(t *testing.T) {
	var c hostClient[uint16]
	c.upSeen = ^uint64(0)
	seqs := []uint16{65530, 65531, 65533, 65532, 65535, 0, 2, 1, 3, 4} // 65534 lost, the rest reordered, across the wrap
	for s := uint16(5); s < 60; s++ {
		if s != 20 && s != 21 { // two more lost
			seqs = append(seqs, s)
		}
	}
	for s := uint16(300); s < 340; s++ { // a gap of 240: every one of them lost
		seqs = append(seqs, s)
	}
	for i, s := range seqs {
		c.heardSeq(s, rollnet.Frame(i))
	}
	require.Equal(t, uint64(3+240), c.upLost)
	require.Equal(t, rollnet.Frame(len(seqs)-40+31), c.lossAt, "the last of the gap counted when 32 newer came")
}
