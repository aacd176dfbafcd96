package torture

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// T9: a hostile peer.
//
// Three players over a lossy, jittery network. p2 plays its part but its
// transport also sends p0 and p1, every tick, a stream drawn from the seed:
// random bytes, truncated and bit-flipped copies of its own packets,
// replays of its old packets, inputs acknowledging frames never sent,
// inputs for frames far in the future and for players it does not hold,
// spectator acks, handshake requests by the hundred, quality replies from
// the future and disconnect notices with stale sequence numbers. An
// outsider endpoint floods everyone with well-formed packets. The honest
// peers must never panic, must keep agreeing with each other and with p2
// on every confirmed frame (the hostile stream carries no input values for
// frames p2 has not sent: those would be indistinguishable from its real
// ones), must report no desync and no disconnection, must count the junk
// as malformed, must answer the handshake flood with a bounded number of
// replies, send the outsider nothing, and keep their heap bounded.

// t9Transport is p2's transport: it records p2's real packets and sends
// junk along with them.
type t9Transport struct {
	transport.Transport
	rng    *rand.Rand
	sent   [][]byte // p2's real packets, for replay
	frame  func() int32
	toP2   map[transport.Peer]int
	junkTo []transport.Peer
}

func (h *t9Transport) Send(to transport.Peer, b []byte) error {
	if len(h.sent) < 2048 {
		h.sent = append(h.sent, append([]byte(nil), b...))
	} else {
		h.sent[h.rng.IntN(len(h.sent))] = append([]byte(nil), b...)
	}
	return h.Transport.Send(to, b)
}

func (h *t9Transport) Receive(buf []byte) (int, transport.Peer, error) {
	n, from, err := h.Transport.Receive(buf)
	if err == nil {
		h.toP2[from]++
	}
	return n, from, err
}

// junk sends one tick's worth of hostile packets to each honest peer.
func (h *t9Transport) junk() {
	r := h.rng
	f := h.frame()
	for _, to := range h.junkTo {
		for range 8 {
			var b []byte
			switch r.IntN(10) {
			case 0: // random bytes, some with a plausible header
				b = make([]byte, r.IntN(80))
				for i := range b {
					b[i] = byte(r.Uint32())
				}
				if len(b) > 0 && r.IntN(2) == 0 {
					b[0] = wire.Version<<4 | byte(1+r.IntN(9))
				}
			case 1, 2: // truncated or bit-flipped copies of real packets
				if len(h.sent) == 0 {
					continue
				}
				b = append([]byte(nil), h.sent[r.IntN(len(h.sent))]...)
				if r.IntN(2) == 0 {
					b = b[:r.IntN(len(b)+1)]
				} else if len(b) > 3 {
					// Flip a bit of the header only: a flipped frame number
					// or input value is a forgery no receiver can tell from
					// the real thing (nothing authenticates packets).
					b[r.IntN(3)] ^= byte(1 << r.IntN(8))
				}
			case 3: // replays
				if len(h.sent) == 0 {
					continue
				}
				b = h.sent[r.IntN(len(h.sent))]
			case 4: // acks of frames never sent
				m := wire.Input{Seq: uint16(r.Uint32()), Ack: f + 100 + r.Int32N(1<<20), Start: max(0, f-2), Size: 2, Players: 4}
				b = m.Append(nil)
			case 5: // inputs far in the future, or for players p2 does not hold
				m := wire.Input{Seq: uint16(r.Uint32()), Ack: -1, Start: f + 200 + r.Int32N(1<<20), Frames: 2, Players: 4, Size: 2, Inputs: make([]byte, 4)}
				if r.IntN(2) == 0 {
					m.Start, m.Players, m.Inputs = f, 1, make([]byte, 4)
				}
				b = m.Append(nil)
			case 6: // a spectator's ack, a future pong, a stale disconnect
				switch r.IntN(3) {
				case 0:
					m := wire.InputAck{Seq: uint16(r.Uint32()), Ack: r.Int32N(1 << 20)}
					b = m.Append(nil)
				case 1:
					m := wire.QualityReply{Seq: uint16(r.Uint32()), Pong: r.Uint64()}
					b = m.Append(nil)
				default:
					m := wire.Disconnect{Seq: uint16(r.Uint32())}
					b = m.Append(nil)
				}
			default: // handshake requests, many
				for range 30 {
					m := wire.SyncRequest{Seq: uint16(r.Uint32()), Nonce: r.Uint64(), Protocol: uint16(r.IntN(3)), Settings: r.Uint64()}
					_ = h.Transport.Send(to, m.Append(nil))
				}
				continue
			}
			_ = h.Transport.Send(to, b)
		}
	}
}

func TestT9HostilePeer(t *testing.T) {
	frames := scaled(3000)
	if race.Enabled {
		frames = scaled(1500)
	}
	seed := baseSeed() + 900
	var hostile *t9Transport
	c := newPCluster(t, seed, pOpts{players: 3,
		link: local.Link{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02},
		wrap: func(player int, tr transport.Transport) transport.Transport {
			if player != 2 {
				return tr
			}
			hostile = &t9Transport{Transport: tr, rng: rand.New(rand.NewPCG(seed, 9)), toP2: map[transport.Peer]int{},
				junkTo: []transport.Peer{"p0", "p1"}}
			return hostile
		}})
	hostile.frame = func() int32 { return int32(c.nodes[2].p.Frame()) }
	outsider, err := c.net.Endpoint("outsider")
	require.NoError(t, err)
	orng := rand.New(rand.NewPCG(seed, 10))

	c.runTo(60, 60*20, 0.3)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sentToP2 := map[transport.Peer]int{}
	for _, n := range c.nodes[:2] {
		st, _ := n.p.PeerStats("p2")
		sentToP2[transport.Peer(n.name)] = int(st.PacketsSent)
	}
	ticks := 0
	for int(c.nodes[0].p.Frame()) < frames || int(c.nodes[1].p.Frame()) < frames {
		require.Less(t, ticks, frames*3, "seed %d: stalled: %s", seed, c.describe())
		ticks++
		hostile.junk()
		for _, to := range []transport.Peer{"p0", "p1", "p2"} {
			in := wire.Input{Seq: uint16(orng.Uint32()), Ack: 3, Start: 2, Frames: 1, Players: 1, Size: 2, Inputs: []byte{1, 2}}
			_ = outsider.Send(to, in.Append(nil))
			req := wire.SyncRequest{Nonce: orng.Uint64(), Protocol: 1}
			_ = outsider.Send(to, req.Append(nil))
		}
		c.tick(0.3)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)

	require.Greater(t, c.agreed(), frames, "seed %d: frames compared", seed)
	for _, n := range c.nodes {
		require.False(t, n.has(rollnet.EventDesyncDetected), "seed %d: %s: %v", seed, n.name, n.events)
		require.False(t, n.has(rollnet.EventDisconnected), "seed %d: %s: %v", seed, n.name, n.events)
	}
	for _, n := range c.nodes[:2] {
		st, err := n.p.PeerStats("p2")
		require.NoError(t, err)
		require.Greater(t, st.Malformed, uint64(ticks), "seed %d: %s counts the junk", seed, n.name)
		require.Less(t, st.RTT, time.Second, "seed %d: %s: forged pongs ignored", seed, n.name)
		// Normal traffic is a few packets a tick; the flood of 30+
		// handshake requests a tick gets at most 8 replies per 200 ms.
		sent := int(st.PacketsSent) - sentToP2[transport.Peer(n.name)]
		require.Less(t, sent, ticks*4+ticks/12*8+8, "seed %d: %s sent p2 %d packets in %d ticks", seed, n.name, sent, ticks)
	}
	buf := make([]byte, transport.MaxDatagram)
	_, _, err = outsider.Receive(buf)
	require.ErrorIs(t, err, transport.ErrNoPacket, "nothing is ever sent to an outsider")
	growth := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	// The test itself keeps up to 2048 recorded packets and a map of
	// checksums; the sessions keep nothing per packet.
	require.Less(t, growth, int64(4<<20), "seed %d: heap grew by %d bytes", seed, growth)
	t.Logf("seed %d: %d frames under attack, %d comparisons, heap %+d bytes; %s", seed, frames, c.agreed(), growth, c.describe())
}
