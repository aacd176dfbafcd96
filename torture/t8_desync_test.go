package torture

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/transport/local"
)

// T8: planted non-determinism is detected on every side within the
// checksum interval plus a round trip.
//
// Three players and two spectators (hosted by p0 and p1). At a frame drawn
// from the seed, p0's simulation starts to differ (as a simulation that
// read a map's order or the wall clock would). Every node whose state now
// differs from a peer's must report DesyncDetected against that peer: p0
// against p1, p2 and its spectator s0, and each of those against p0; s1,
// fed by p1, agrees with its host and reports nothing. Each report must
// come within the checksum interval plus the round trip (plus the time
// inputs take to be confirmed, and for a spectator the time they take to
// reach it) after p0 simulated the planted frame. Repeated for several
// seeds (times -torture.scale).

func TestT8PlantedDesync(t *testing.T) {
	const interval = 30
	for k := range scaled(3) {
		seed := baseSeed() + 800 + uint64(k)
		plant := rollnet.Frame(200 + int(seed%97))
		c := newPCluster(t, seed, pOpts{players: 3, spectators: 2, noRepair: true, // p0 stays broken: detection alone
			link: local.Link{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.01},
			net:  rollnet.NetConfig{ChecksumInterval: interval},
			sim: func(player int) func(*testkit.World, []uint16, rollnet.Frame) {
				return func(s *testkit.World, in []uint16, f rollnet.Frame) {
					testkit.Simulate(s, in, f)
					if player == 0 && f >= plant {
						s.Acc[3] ^= uint32(f) // a hidden dependency only p0 has
					}
				}
			}})
		c.compare = false
		var planted time.Time
		detected := map[string]time.Time{}
		expect := map[string][]string{"p0": {"p1", "p2", "s0"}, "p1": {"p0"}, "p2": {"p0"}, "s0": {"p0"}}
		for range 60 * 10 {
			c.tick(0.3)
			if planted.IsZero() && c.nodes[0].p.Frame() > plant {
				planted = c.clock.Now()
			}
			for _, n := range c.nodes {
				for _, e := range n.events {
					if e.Kind == rollnet.EventDesyncDetected {
						key := n.name + "/" + string(e.Peer)
						if _, ok := detected[key]; !ok {
							detected[key] = c.clock.Now()
							require.Equal(t, rollnet.Frame((int(plant)+interval-1)/interval*interval), e.Frame,
								"seed %d: %s: first diverging checksum frame", seed, key)
							require.NotEqual(t, e.Local, e.Remote)
						}
					}
				}
			}
			if len(detected) >= 8 && c.clock.Now().Sub(planted) > 2*time.Second {
				break
			}
		}
		st, err := c.nodes[0].p.PeerStats("p1")
		require.NoError(t, err)
		rtt := st.RTT
		for side, peers := range expect {
			for _, peer := range peers {
				at, ok := detected[side+"/"+peer]
				require.True(t, ok, "seed %d: %s never detected the desync with %s (%v)", seed, side, peer, detected)
				// Interval, round trip, confirmation (input delay, one-way
				// latency, a tick each way); a spectator also waits for the
				// host to confirm and forward the frame.
				budget := interval*time.Second/60 + rtt + 200*time.Millisecond
				if side[0] == 's' || peer[0] == 's' {
					budget += 200 * time.Millisecond
				}
				require.LessOrEqual(t, at.Sub(planted), budget, "seed %d: %s detected %s after %v", seed, side, peer, at.Sub(planted))
				t.Logf("seed %d: %s detected the desync with %s %v after the plant (budget %v)", seed, side, peer, at.Sub(planted), budget)
			}
		}
		for key := range detected {
			require.NotContains(t, key, "s1", "seed %d: s1 agrees with its host", seed)
		}
	}
}
