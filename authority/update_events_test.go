package authority

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// TestUpdateKeepsEveryStepsEvents: Update runs one AdvanceFrame per whole
// step in dt, and Events reports the events of all of them, not only the
// last one's. A client whose host went silent learns it is disconnected
// however its Update calls fall: a loaded machine's game loop runs late
// and takes several steps a call. Before, a disconnect seen in any step
// but an Update's last was dropped, and the demo's client played on for
// good after its host quit (TestResumeTooLate, 9 of 22 loaded runs).
func TestUpdateKeepsEveryStepsEvents(t *testing.T) {
	for phase := range 4 {
		c := newCluster(t, clusterOpts{seed: 17, players: 2, link: local.Link{Latency: 10 * time.Millisecond}})
		nd := c.add("a", ClientConfig{}, nil)
		c.run(2 * time.Second)
		require.True(t, nd.c.Synchronized())
		for range phase { // where the steps of the calls below fall
			c.clock.Advance(tick)
			_, err := nd.c.Update(tick)
			require.NoError(t, err)
		}
		// The host stops: nothing comes from it any more.
		var evs []rollnet.Event
		disconnected := 0
		for range 10 * 60 / 4 { // 10 s, four steps a call
			c.clock.Advance(4 * tick)
			_, err := nd.c.Update(4 * tick)
			require.NoError(t, err)
			evs = nd.c.Events(evs[:0])
			for _, e := range evs {
				if e.Kind == rollnet.EventDisconnected {
					disconnected++
				}
			}
		}
		require.Equal(t, 1, disconnected, "phase %d: EventDisconnected in 10 s of a silent host, with Update taking four steps a call", phase)
	}
}

// TestEventsDrain: Events drains a queue, as in the P2P session: events
// of AdvanceFrame calls not followed by Events are kept until the next
// call, which reports each once.
func TestEventsDrain(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 17, players: 2, link: local.Link{Latency: 10 * time.Millisecond}})
	nd := c.add("a", ClientConfig{}, nil)
	c.run(2 * time.Second)
	require.True(t, nd.c.Synchronized())
	_ = nd.c.Events(nil)
	for range 10 * 60 { // the host stops: 10 s of steps, Events not called
		c.clock.Advance(tick)
		_, err := nd.c.Update(tick)
		require.NoError(t, err)
	}
	disconnected := 0
	for _, e := range nd.c.Events(nil) {
		if e.Kind == rollnet.EventDisconnected {
			disconnected++
		}
	}
	require.Equal(t, 1, disconnected, "the disconnect of a step long past is still reported")
	require.Empty(t, nd.c.Events(nil), "reported once")
}

// The host's Events drain too: a client cut off while the game does not
// call Events is reported once, interrupted then disconnected, when the
// game calls it long after, and not again.
func TestHostEventsDrain(t *testing.T) {
	net := rollnet.NetConfig{DisconnectTimeout: time.Second, DisconnectNotify: 500 * time.Millisecond}
	c := newCluster(t, clusterOpts{seed: 19, players: 2, link: local.Link{Latency: 10 * time.Millisecond},
		host: HostConfig[uint16]{Grace: 2 * time.Second, Net: net}})
	nd := c.add("a", ClientConfig{Net: net}, nil)
	c.run(2 * time.Second)
	require.True(t, nd.c.Synchronized())
	_ = c.h.Events(nil)
	c.net.Partition("a", "host")
	nd.cut = true
	c.run(10 * time.Second) // the host runs on; Events not called
	kinds := map[rollnet.EventKind]int{}
	for _, e := range c.h.Events(nil) {
		require.Equal(t, transport.Peer("a"), e.Peer)
		kinds[e.Kind]++
	}
	require.Equal(t, 1, kinds[rollnet.EventNetworkInterrupted], "the interruption of a tick long past is still reported")
	require.Equal(t, 1, kinds[rollnet.EventDisconnected], "the disconnect of a tick long past is still reported")
	require.Empty(t, c.h.Events(nil), "reported once")
}
