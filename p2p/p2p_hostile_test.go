package p2p

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// hostileTransport wraps a node's transport: it delivers forged packets
// (as if from a peer) before the real ones, records real packets for
// replay, and counts what the node sends to each peer.
type hostileTransport struct {
	transport.Transport
	forged   [][]byte
	from     []transport.Peer
	captured [][]byte // real packets received from p1
	sent     map[transport.Peer]int
}

func (h *hostileTransport) Receive(buf []byte) (int, transport.Peer, error) {
	if len(h.forged) > 0 {
		b, from := h.forged[0], h.from[0]
		h.forged, h.from = h.forged[1:], h.from[1:]
		return copy(buf, b), from, nil
	}
	n, from, err := h.Transport.Receive(buf)
	if err == nil && from == "p1" && len(h.captured) < 4096 {
		h.captured = append(h.captured, append([]byte(nil), buf[:n]...))
	}
	return n, from, err
}

func (h *hostileTransport) Send(to transport.Peer, b []byte) error {
	h.sent[to]++
	return h.Transport.Send(to, b)
}

func (h *hostileTransport) forge(from transport.Peer, b []byte) {
	h.forged = append(h.forged, append([]byte(nil), b...))
	h.from = append(h.from, from)
}

// hostileP0 is a clusterOpts.wrap that makes p0's transport hostile and
// puts it in *h.
func hostileP0(h **hostileTransport) func(int, transport.Transport) transport.Transport {
	return func(i int, tr transport.Transport) transport.Transport {
		if i != 0 {
			return tr
		}
		*h = &hostileTransport{Transport: tr, sent: map[transport.Peer]int{}}
		return *h
	}
}

// hostileCluster is two players on a 40 ms link; p0's transport is
// hostile.
func hostileCluster(t *testing.T, seed uint64) (*p2pCluster, *hostileTransport) {
	var h *hostileTransport
	c := newCluster(t, clusterOpts{players: 2, seed: seed, mash: 0.3,
		link: local.Link{Latency: 40 * time.Millisecond, Jitter: 5 * time.Millisecond},
		cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 32}, wrap: hostileP0(&h)})
	c.frames(120, 10*time.Second)
	return c, h
}

// attack runs the cluster for frames frames, calling inject before every
// tick, and checks that the peers still agree on every frame and nobody
// was disconnected.
func attack(t *testing.T, c *p2pCluster, frames int, inject func(rng *rand.Rand)) {
	rng := rand.New(rand.NewPCG(1, 2))
	before := c.agreed()
	end := int(c.nodes[0].p.Frame()) + frames
	c.until(time.Duration(frames)*time.Second/20, "frames under attack", func() bool {
		inject(rng)
		return int(c.nodes[0].p.Frame()) >= end && int(c.nodes[1].p.Frame()) >= end
	})
	require.Greater(t, c.agreed(), before+frames/2, "peers kept agreeing")
	for _, n := range c.nodes {
		_, gone := n.first(rollnet.EventDisconnected)
		require.False(t, gone, "%s: %v", n.name, n.events)
		_, desync := n.first(rollnet.EventDesyncDetected)
		require.False(t, desync, n.name)
	}
}

func TestP2PHostileGarbage(t *testing.T) {
	c, h := hostileCluster(t, 11)
	attack(t, c, 600, func(rng *rand.Rand) {
		for range 5 {
			b := make([]byte, rng.IntN(64))
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			if len(b) > 0 && rng.IntN(2) == 0 {
				b[0] = wire.Version<<4 | byte(rng.IntN(10)) // a plausible header
			}
			h.forge("p1", b)
		}
	})
	st, err := c.nodes[0].p.PeerStats("p1")
	require.NoError(t, err)
	require.Greater(t, st.Malformed, uint64(100))
}

func TestP2PHostileUnknownPeer(t *testing.T) {
	c, _ := hostileCluster(t, 12)
	evil, err := c.net.Endpoint("evil")
	require.NoError(t, err)
	attack(t, c, 300, func(rng *rand.Rand) {
		req := wire.SyncRequest{Nonce: rng.Uint64(), Protocol: protocolVersion}
		_ = evil.Send("p0", req.Append(nil))
		in := wire.Input{Ack: 5, Start: 2, Frames: 1, Players: 2, Size: 2, Inputs: []byte{1, 2}}
		_ = evil.Send("p0", in.Append(nil))
	})
	buf := make([]byte, transport.MaxDatagram)
	_, _, err = evil.Receive(buf)
	require.ErrorIs(t, err, transport.ErrNoPacket, "nothing is ever sent to an unknown peer")
	require.Greater(t, c.nodes[0].p.ep.Unknown(), uint64(100))
}

func TestP2PHostileReplay(t *testing.T) {
	c, h := hostileCluster(t, 13)
	attack(t, c, 600, func(rng *rand.Rand) {
		for range 5 {
			if len(h.captured) > 0 {
				h.forge("p1", h.captured[rng.IntN(len(h.captured))])
			}
		}
	})
}

func TestP2PHostileForgedAcksAndFutureInputs(t *testing.T) {
	c, h := hostileCluster(t, 14)
	p0 := c.nodes[0].p
	attack(t, c, 600, func(rng *rand.Rand) {
		f := int32(p0.Frame())
		// Acks of frames never sent.
		m := wire.Input{Seq: uint16(rng.Uint32()), Ack: f + 50 + rng.Int32N(1000), Start: f, Size: 2, Players: 2}
		h.forge("p1", m.Append(nil))
		// Inputs far in the future.
		m = wire.Input{Seq: uint16(rng.Uint32()), Ack: -1, Start: f + 100 + rng.Int32N(100000), Frames: 3, Players: 2, Size: 2, Inputs: make([]byte, 6)}
		h.forge("p1", m.Append(nil))
		// Inputs for another peer's player, or the wrong mask.
		m = wire.Input{Seq: uint16(rng.Uint32()), Ack: -1, Start: f, Frames: 1, Players: 1, Size: 2, Inputs: make([]byte, 2)}
		h.forge("p1", m.Append(nil))
		// An InputAck (spectators only) and an old-sequence disconnect.
		a := wire.InputAck{Ack: f + 1000}
		h.forge("p1", a.Append(nil))
		d := wire.Disconnect{Seq: 0}
		h.forge("p1", d.Append(nil))
		// Quality replies from the future.
		q := wire.QualityReply{Pong: 1 << 62}
		h.forge("p1", q.Append(nil))
	})
	st, _ := p0.PeerStats("p1")
	require.Greater(t, st.Malformed, uint64(500))
	require.Less(t, st.RTT, time.Second)
}

// A flood of handshake requests gets a bounded number of replies.
func TestP2PHostileSyncFlood(t *testing.T) {
	c, h := hostileCluster(t, 15)
	sentBefore := h.sent["p1"]
	ticks := 0
	attack(t, c, 120, func(rng *rand.Rand) {
		ticks++
		for range 200 {
			m := wire.SyncRequest{Seq: uint16(rng.Uint32()), Nonce: rng.Uint64(), Protocol: protocolVersion, Settings: rng.Uint64()}
			h.forge("p1", m.Append(nil))
		}
	})
	replies := h.sent["p1"] - sentBefore
	// Normal traffic is at most a few packets a tick; replies at most
	// syncReplyBudget per SyncRetry (12 ticks).
	require.Less(t, replies, ticks*4+ticks/12*syncReplyBudget+syncReplyBudget, "%d packets sent in %d ticks of flood", replies, ticks)
}

// Mutated real packets never panic and never grow memory; they may carry
// wrong inputs (nothing authenticates them), so agreement is not checked.
func TestP2PHostileMutations(t *testing.T) {
	c, h := hostileCluster(t, 16)
	c.noSums = true
	rng := rand.New(rand.NewPCG(3, 4))
	for range 600 {
		for range 5 {
			if len(h.captured) == 0 {
				break
			}
			b := append([]byte(nil), h.captured[rng.IntN(len(h.captured))]...)
			for range 1 + rng.IntN(3) {
				b[rng.IntN(len(b))] ^= byte(1 << rng.IntN(8))
			}
			h.forge("p1", b[:rng.IntN(len(b)+1)])
		}
		c.run(time.Second / 60)
	}
	require.Greater(t, int(c.nodes[0].p.Frame()), 300)
}
