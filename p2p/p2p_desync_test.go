package p2p

import (
	"fmt"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// plantSim is the cluster's simulation with a divergence planted on one
// node: its state after frame plant differs from the others'.
func plantSim(node int, plant rollnet.Frame) func(i int) func(*p2pWorld, []uint16, rollnet.Frame) {
	return func(i int) func(*p2pWorld, []uint16, rollnet.Frame) {
		return func(w *p2pWorld, in []uint16, f rollnet.Frame) {
			simP2P(w, in, f)
			if i == node && f == plant {
				w.Acc[0]++
			}
		}
	}
}

// TestP2PDesyncBound holds the bound the package documentation states: a
// desync is reported on both sides within one checksum interval plus one
// round trip (plus two ticks: the frame's own and the receiving loop's) of
// the frame where it happened, at 40, 100 and 200 ms one way with the
// default interval, and the event names the earliest frame known to
// differ (the first grid frame at or after the divergence) and the newest
// known to agree (the grid frame before it).
func TestP2PDesyncBound(t *testing.T) {
	const plant = 301 // first frame whose state differs
	for _, oneWay := range []time.Duration{40 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond} {
		t.Run(fmt.Sprint(oneWay), func(t *testing.T) {
			const jitter = 5 * time.Millisecond
			c := newCluster(t, clusterOpts{players: 2, seed: 7, mash: 0.3,
				link: local.Link{Latency: oneWay, Jitter: jitter},
				cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 64}, sim: plantSim(1, plant)})
			c.noSums = true
			planted := map[int]time.Time{}
			detected := map[int]time.Time{}
			c.until(30*time.Second, "desync detected on both sides", func() bool {
				for i, n := range c.nodes {
					if _, ok := planted[i]; !ok && n.p.Frame() > plant {
						planted[i] = c.clock.Now()
					}
					if _, ok := detected[i]; !ok {
						if _, ok := n.first(rollnet.EventDesyncDetected); ok {
							detected[i] = c.clock.Now()
						}
					}
				}
				return len(detected) == 2
			})
			if planted[0].IsZero() || planted[1].IsZero() {
				t.Fatal("detected before both simulated the plant")
			}
			first := planted[0]
			if planted[1].Before(first) {
				first = planted[1]
			}
			interval := 10 * time.Second / 60 // the default
			tick := time.Second / 60
			bound := interval + 2*(oneWay+jitter) + 2*tick
			for i, n := range c.nodes {
				e, _ := n.first(rollnet.EventDesyncDetected)
				require.Equal(t, rollnet.Frame(310), e.Frame, "%s: the first grid frame at or after the plant", n.name)
				require.Equal(t, rollnet.Frame(300), e.Agreed, "%s: the grid frame before it agreed", n.name)
				require.Len(t, n.kinds(rollnet.EventDesyncDetected), 1, "%s: reported once", n.name)
				took := detected[i].Sub(first)
				require.LessOrEqual(t, took, bound, "%s detected %v after the divergent frame was first simulated", n.name, took)
				t.Logf("%s: detected %v after the divergent frame (bound %v)", n.name, took, bound)
			}
		})
	}
}
