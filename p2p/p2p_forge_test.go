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

// TestP2PForgedEachType forges, with a spoofed source and random sequence
// numbers (what an attacker who cannot see the traffic sends), 20 packets
// a tick of one message type at p0, for 600 frames over a lossy 40 ms
// link, content as plausible as the attacker can make it: acks of
// everything p0 sent, a huge frame advantage, random pongs... The match
// must play at full speed (no freeze, few waits), keep comparing
// checksums, report no desync and disconnect nobody. Before issue 14 item
// 4, forged acks froze the match, forged pongs and keep-alives moved the
// newest sequence number so honest checksum reports were refused, and
// forged quality reports made p0 wait.
func TestP2PForgedEachType(t *testing.T) {
	forgeries := []struct {
		name string
		from transport.Peer
		make func(rng *rand.Rand, p0 *Session[p2pWorld, uint16]) []byte
	}{
		{"Input", "p1", func(rng *rand.Rand, p0 *Session[p2pWorld, uint16]) []byte {
			m := wire.Input{Seq: uint16(rng.Uint32()), Ack: int32(p0.newest), Start: int32(p0.newest), Players: 2, Size: 2}
			return m.Append(nil)
		}},
		{"InputAck", "s0", func(rng *rand.Rand, p0 *Session[p2pWorld, uint16]) []byte {
			m := wire.InputAck{Seq: uint16(rng.Uint32()), Ack: int32(p0.ep.Links()[1].Sent)}
			return m.Append(nil)
		}},
		{"QualityReport", "p1", func(rng *rand.Rand, p0 *Session[p2pWorld, uint16]) []byte {
			m := wire.QualityReport{Seq: uint16(rng.Uint32()), FrameAdvantage: -1<<20 + 1, Ping: rng.Uint64()}
			return m.Append(nil)
		}},
		{"QualityReply", "p1", func(rng *rand.Rand, p0 *Session[p2pWorld, uint16]) []byte {
			m := wire.QualityReply{Seq: uint16(rng.Uint32()), Pong: rng.Uint64()}
			return m.Append(nil)
		}},
		{"KeepAlive", "p1", func(rng *rand.Rand, p0 *Session[p2pWorld, uint16]) []byte {
			m := wire.KeepAlive{Seq: uint16(rng.Uint32())}
			return m.Append(nil)
		}},
		{"Disconnect", "p1", func(rng *rand.Rand, p0 *Session[p2pWorld, uint16]) []byte {
			m := wire.Disconnect{Seq: uint16(rng.Uint32())}
			return m.Append(nil)
		}},
		{"Checksum", "p1", func(rng *rand.Rand, p0 *Session[p2pWorld, uint16]) []byte {
			m := wire.Checksum{Seq: uint16(rng.Uint32()), Frame: rng.Int32(), Checksum: rng.Uint32()}
			return m.Append(nil)
		}},
		{"SyncRequest", "p1", func(rng *rand.Rand, p0 *Session[p2pWorld, uint16]) []byte {
			m := wire.SyncRequest{Seq: uint16(rng.Uint32()), Nonce: rng.Uint64(), Protocol: protocolVersion, Settings: p0.ep.Links()[0].Expect}
			return m.Append(nil)
		}},
		{"SyncReply", "p1", func(rng *rand.Rand, p0 *Session[p2pWorld, uint16]) []byte {
			m := wire.SyncReply{Seq: uint16(rng.Uint32()), Nonce: rng.Uint64(), Protocol: protocolVersion, Settings: p0.ep.Links()[0].Expect}
			return m.Append(nil)
		}},
	}
	for i, f := range forgeries {
		t.Run(f.name, func(t *testing.T) {
			var h *hostileTransport
			c := newCluster(t, clusterOpts{players: 2, spectators: 1, seed: 40 + uint64(i), mash: 0.3,
				link: local.Link{Latency: 40 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.03},
				cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 32}, net: rollnet.NetConfig{ChecksumInterval: 10},
				wrap: hostileP0(&h)})
			c.frames(120, 10*time.Second)
			p0, spec := c.nodes[0].p, c.node("s0")
			before, _ := p0.PeerStats("p1")
			specBefore := spec.s.Frame()
			waited := c.nodes[0].waited + c.nodes[1].waited
			rng := rand.New(rand.NewPCG(uint64(i), 2))
			const frames = 600
			end := p0.Frame() + frames
			start := c.clock.Now()
			c.until(frames*time.Second/20, "frames under attack", func() bool {
				for range 20 {
					h.forge(f.from, f.make(rng, p0))
				}
				return p0.Frame() >= end && c.nodes[1].p.Frame() >= end
			})
			took := c.clock.Now().Sub(start)
			require.Less(t, took, frames*time.Second/60*11/10, "the match slowed down under attack")
			require.Less(t, c.nodes[0].waited+c.nodes[1].waited-waited, frames/20, "waits recommended under attack")
			after, _ := p0.PeerStats("p1")
			require.Greater(t, after.ChecksumsCompared-before.ChecksumsCompared, uint64(frames/10/2), "desync detection kept working")
			require.Greater(t, int(spec.s.Frame()-specBefore), frames*9/10, "the spectator kept up")
			for _, n := range c.nodes {
				_, gone := n.first(rollnet.EventDisconnected)
				require.False(t, gone, "%s: %v", n.name, n.events)
				_, desync := n.first(rollnet.EventDesyncDetected)
				require.False(t, desync, n.name)
			}
		})
	}
}
