package p2p

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// expecting is a real local transport that records what the session tells
// it to expect.
type expecting struct {
	transport.Transport
	calls [][]transport.Peer
}

func (e *expecting) Expect(peers ...transport.Peer) {
	e.calls = append(e.calls, append([]transport.Peer(nil), peers...))
}

// ExpectAnyone is recorded as a nil set.
func (e *expecting) ExpectAnyone() { e.calls = append(e.calls, nil) }

// TestP2PExpectsItsPeers: a transport that can filter is told every player
// peer and spectator at construction, again with a spectator added during
// the match, and a spectator's transport is told its host.
func TestP2PExpectsItsPeers(t *testing.T) {
	var host *expecting
	c := newCluster(t, clusterOpts{players: 3, spectators: 1, seed: 3, cfg: session.Config[uint16]{InputDelay: 1},
		link: local.Link{Latency: 10 * time.Millisecond},
		mutate: func(i int, cfg *Config[uint16]) {
			if i == 0 {
				cfg.SpectatorArchive = 600
			}
		},
		wrap: func(i int, tr transport.Transport) transport.Transport {
			if i != 0 {
				return tr
			}
			host = &expecting{Transport: tr}
			return host
		}})
	require.Equal(t, [][]transport.Peer{{"p1", "p2", "s0"}}, host.calls)
	c.frames(30, 10*time.Second)
	require.NoError(t, c.nodes[0].p.AddSpectator("late"))
	require.Equal(t, []transport.Peer{"p1", "p2", "s0", "late"}, host.calls[len(host.calls)-1])

	ep, err := c.net.Endpoint("watcher")
	require.NoError(t, err)
	w := &expecting{Transport: ep}
	_, err = NewSpectator[p2pWorld, uint16](SpectatorConfig{Players: 3, InputDelay: 1, Host: "p0"}, w, simP2P)
	require.NoError(t, err)
	require.Equal(t, [][]transport.Peer{{"p0"}}, w.calls)
}
