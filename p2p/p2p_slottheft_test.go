package p2p

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// theftTransport records, on player M's transport, the Rejoin messages
// from A (p0), and counts, on B's, the datagrams sent to A.
type theftTransport struct {
	transport.Transport
	tokens [][]byte // Rejoin Token messages received from p0
	toA    int      // datagrams sent to p0
}

func (h *theftTransport) Receive(buf []byte) (int, transport.Peer, error) {
	n, from, err := h.Transport.Receive(buf)
	if err == nil && from == "p0" {
		if m, _, perr := wire.ParseRejoin(buf[:n]); perr == nil && m.Kind == wire.RejoinToken {
			h.tokens = append(h.tokens, append([]byte(nil), buf[:n]...))
		}
	}
	return n, from, err
}

func (h *theftTransport) Send(to transport.Peer, b []byte) error {
	if to == "p0" {
		h.toA++
	}
	return h.Transport.Send(to, b)
}

// theftCluster is players A (p0), B (p1) and M (p2) on 20 ms links, M's
// and B's transports watched; it runs until M holds what A told it.
func theftCluster(t *testing.T, seed uint64) (c *p2pCluster, b, m *theftTransport) {
	c = newCluster(t, clusterOpts{players: 3, seed: seed, mash: 0.3,
		link: local.Link{Latency: 20 * time.Millisecond},
		cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 64},
		wrap: func(i int, tr transport.Transport) transport.Transport {
			if i == 0 {
				return tr
			}
			h := &theftTransport{Transport: tr}
			if i == 1 {
				b = h
			} else {
				m = h
			}
			return h
		}})
	c.until(10*time.Second, "M's rejoin token and A's Token message at M", func() bool {
		_, ok := c.nodes[2].p.RejoinToken()
		return ok && len(m.tokens) > 0
	})
	c.frames(60, 5*time.Second)
	return c, b, m
}

// stealA is the attack of issue 28 item 1: M goes silent toward B for a
// second (which opens B's door to strangers, as M's slot becomes
// takeable), then asks B, from a new address, every tick for two
// seconds, to take A back with secret; then M talks to B again. It
// requires that A keep its slot at B: B rebinds nothing, keeps sending A
// its normal rate, and A advances every one of 600 frames.
func stealA(t *testing.T, c *p2pCluster, b *theftTransport, secret [wire.SecretLen]byte) {
	t.Helper()
	pA, pB, pM := c.nodes[0].p, c.nodes[1].p, c.nodes[2].p
	tokM, ok := pM.RejoinToken()
	require.True(t, ok)
	thief, err := c.net.Endpoint("m2")
	require.NoError(t, err)
	c.net.Partition("p2", "p1")
	c.run(time.Second)
	sentBefore, startA := b.toA, pA.Frame()
	req := wire.Rejoin{Kind: wire.RejoinRequest, Players: 1 << 0, Match: tokM.Match, Secret: secret}
	for range 120 {
		req.Seq++
		require.NoError(t, thief.Send("p1", req.Append(nil)))
		c.run(time.Second / 60)
	}
	c.net.Heal("p2", "p1")
	end := c.clock.Now().Add(12 * time.Second)
	for c.clock.Now().Before(end) && pA.Frame() < startA+600 {
		c.run(time.Second / 60)
	}
	sent := b.toA - sentBefore
	t.Logf("B sent A %d datagrams while A advanced %d of 600 frames", sent, pA.Frame()-startA)
	require.GreaterOrEqual(t, int(pA.Frame()-startA), 600, "A advanced every frame within 12 s (M's silence toward B stalls everyone for a while)")
	for _, n := range c.nodes[:2] {
		for _, e := range n.events {
			if e.Player == 0 && (e.Kind == rollnet.EventPlayerRejoining || e.Kind == rollnet.EventPlayerDisconnected) {
				t.Fatalf("%s: A lost its slot: %+v", n.name, e)
			}
		}
	}
	for _, l := range pB.ep.Links() {
		require.NotEqual(t, transport.Peer("m2"), l.Peer, "B moved a link to the thief")
	}
	require.Greater(t, sent, 400, "B kept sending A its normal rate (about one datagram a frame)")
	require.Greater(t, pB.UnknownPackets(), uint64(100), "the thief's requests were counted")
}

// TestP2PSlotTheftWithTokenSecret: M replays the secret A's Token gave
// it. Before protocol 4 that was A's rejoin secret, and B gave M A's
// slot (B then sent A 1 datagram in 10 s, A advanced 298 of 600 frames).
func TestP2PSlotTheftWithTokenSecret(t *testing.T) {
	c, b, m := theftCluster(t, 281)
	tok, _, err := wire.ParseRejoin(m.tokens[0])
	require.NoError(t, err)
	stealA(t, c, b, tok.Secret)
}

// TestP2PRebindRefusedWhileHeard: even with the very proof A would give
// B (its key for B, which only A and B hold), a request from a new
// address is not answered while A is heard at B: the rebind waits for
// A's silence (DisconnectNotify).
func TestP2PRebindRefusedWhileHeard(t *testing.T) {
	c, b, _ := theftCluster(t, 282)
	pA := c.nodes[0].p
	for i, l := range pA.ep.Links()[:pA.nPlayers] {
		if l.Peer == "p1" {
			stealA(t, c, b, pA.rj.peers[i].key)
			return
		}
	}
	t.Fatal("A has no link to B")
}
