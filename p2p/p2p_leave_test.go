package p2p

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// dropFirst is a real transport that loses the first datagram of type typ
// it is asked to send.
type dropFirst struct {
	transport.Transport
	typ     wire.Type
	dropped bool
}

func (d *dropFirst) Send(to transport.Peer, b []byte) error {
	if t, _, _, err := wire.ParseHeader(b); err == nil && t == d.typ && !d.dropped {
		d.dropped = true
		return nil
	}
	return d.Transport.Send(to, b)
}

// TestP2PDisconnectNoticeLost: a peer that closes is dropped by the other
// soon (twice the keep-alive), not after the whole disconnect timeout,
// even when its first notice is lost (issue 19 defect 5: it was sent
// once).
func TestP2PDisconnectNoticeLost(t *testing.T) {
	var d *dropFirst
	c := newCluster(t, clusterOpts{players: 2, seed: 9, link: local.Link{Latency: 20 * time.Millisecond},
		wrap: func(i int, tr transport.Transport) transport.Transport {
			if i != 0 {
				return tr
			}
			d = &dropFirst{Transport: tr, typ: wire.TypeDisconnect}
			return d
		}})
	c.frames(60, 10*time.Second)
	require.NoError(t, c.nodes[0].p.Close())
	c.nodes[0].paused = true
	left := c.clock.Now()
	gone := c.until(5*time.Second, "p1 drops p0", func() bool {
		_, ok := c.nodes[1].first(rollnet.EventDisconnected)
		return ok
	})
	require.True(t, d.dropped)
	require.Less(t, gone.Sub(left), time.Second, "dropped %v after the notice, not at the 5 s timeout", gone.Sub(left))
}
