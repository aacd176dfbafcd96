package authority

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// spoofed delivers forged packets, as if from another peer, before the
// real ones: what an attacker who can spoof a source address (a raw-UDP
// transport) but cannot see the traffic sends.
type spoofed struct {
	transport.Transport
	forged [][]byte
	from   transport.Peer
}

func (s *spoofed) Receive(buf []byte) (int, transport.Peer, error) {
	if len(s.forged) > 0 {
		b := s.forged[0]
		s.forged = s.forged[1:]
		return copy(buf, b), s.from, nil
	}
	return s.Transport.Receive(buf)
}

// TestForgedEachType forges, from a spoofed source with random sequence
// numbers, four packets a tick of one authority message type for 10 s:
// at the host as if from client a (inputs for the coming frames with
// other values and an ack of the newest state sent, Nacks, resume Hellos,
// the link's own messages), and at client a as if from the host (states
// with a valid checksum of another world, Welcomes, the link's own).
// Every forgery carries content as plausible as the attacker can make it;
// only its sequence number gives it away, so link.Accept must refuse
// about 31 in 32 of them before they act: a's states stay the host's (at
// most one forged in 16 applied), the host simulates its inputs, not the
// forged ones (at most one frame in 16 wrong), nobody is disconnected.
// The forgeries that get through still cost something: a forged state
// taken for frame F makes the host's real F look old, and the states
// delta-coded on it fail their checksum until the client's acks move on
// (under this flood, a keeps about half of the host's states). With
// Accept's answer ignored (Heard), the forged inputs and states are taken
// and this fails (tried).
func TestForgedEachType(t *testing.T) {
	type forgery struct {
		name string
		at   string // whose transport receives it
		make func(rng *rand.Rand, c *cluster) []byte
	}
	seq := func(rng *rand.Rand) uint16 { return uint16(rng.Uint32()) }
	forgeries := []forgery{
		{"AuthInput", "host", func(rng *rand.Rand, c *cluster) []byte {
			hc := c.h.clients[c.record("a")]
			in := []byte{byte(rng.Uint32()), 0x80}
			return codec.AuthInput{Seq: seq(rng), Ack: int32(hc.sentUpTo), Start: int32(hc.heard + 1), Frames: 1, Slots: 1, Size: 2, Inputs: in}.Append(nil)
		}},
		{"Nack", "host", func(rng *rand.Rand, c *cluster) []byte {
			return codec.Nack{Seq: seq(rng), Msg: c.h.clients[c.record("a")].out.next - 1, Missing: ^uint64(0)}.Append(nil)
		}},
		{"Hello", "host", func(rng *rand.Rand, c *cluster) []byte {
			return codec.Hello{Seq: seq(rng), Settings: c.h.Settings(), Nonce: rng.Uint64(), Resume: true, Token: c.h.clients[c.record("a")].token}.Append(nil)
		}},
		{"StateFragment", "a", func(rng *rand.Rand, c *cluster) []byte {
			cl := c.nodes[0].c
			var w world
			w.H = rng.Uint64()
			b := rollback.BytesOf(&w)
			body := codec.StateBody{Frame: int32(cl.newestHost + 1), Base: -1, InputAck: int32(cl.frame), Players: 2, Size: 2,
				Inputs: []byte{1, 2, 3, 4}, Checksum: rollback.Checksum(b), Delta: b}
			return codec.StateFragment{Seq: seq(rng), Msg: rng.Uint32(), Count: 1, Chunk: body.Append(nil)}.Append(nil)
		}},
		{"Welcome", "a", func(rng *rand.Rand, c *cluster) []byte {
			return codec.Welcome{Seq: seq(rng), Kind: codec.WelcomeReject, Nonce: rng.Uint64()}.Append(nil)
		}},
	}
	for _, at := range []string{"host", "a"} {
		forgeries = append(forgeries,
			forgery{"QualityReport@" + at, at, func(rng *rand.Rand, c *cluster) []byte {
				return codec.QualityReport{Seq: seq(rng), Ping: rng.Uint64()}.Append(nil)
			}},
			forgery{"QualityReply@" + at, at, func(rng *rand.Rand, c *cluster) []byte {
				return codec.QualityReply{Seq: seq(rng), Pong: rng.Uint64()}.Append(nil)
			}},
			forgery{"KeepAlive@" + at, at, func(rng *rand.Rand, c *cluster) []byte {
				return codec.KeepAlive{Seq: seq(rng)}.Append(nil)
			}},
			forgery{"Disconnect@" + at, at, func(rng *rand.Rand, c *cluster) []byte {
				return codec.Disconnect{Seq: seq(rng)}.Append(nil)
			}},
		)
	}
	for i, f := range forgeries {
		t.Run(f.name, func(t *testing.T) {
			spoofs := map[string]*spoofed{}
			c := newCluster(t, clusterOpts{seed: 60 + uint64(i), players: 2,
				link: local.Link{Latency: 40 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02},
				wrap: func(name string, tr transport.Transport) transport.Transport {
					from := map[string]transport.Peer{"host": "a", "a": "host"}[name]
					if from == "" {
						return tr
					}
					spoofs[name] = &spoofed{Transport: tr, from: from}
					return spoofs[name]
				}})
			c.noCheck = true // counted below instead: a forged state may get through now and then
			a := c.add("a", ClientConfig{}, mash(1, 3))
			c.add("b", ClientConfig{}, func(Frame) uint16 { return 5 })
			c.run(3 * time.Second)
			require.True(t, a.c.Synchronized())
			ra := c.record("a")
			hostA := func() ClientStats { return c.h.clients[ra].clientStats(1) }
			before, beforeA := a.c.Stats(), hostA()
			rng := rand.New(rand.NewPCG(uint64(i), 3))
			const ticks, per = 600, 4
			forged, bad, wrong, seen := 0, 0, 0, a.seen
			for range ticks {
				for range per {
					spoofs[f.at].forged = append(spoofs[f.at].forged, f.make(rng, c))
					forged++
				}
				c.run(tick)
				if f := c.h.Frame() - 1; c.h.used[c.h.clients[ra].first] != a.input(f) {
					wrong++ // the host simulated a with an input a never made
				}
				if s, g := a.c.HostState(); g > seen {
					seen = g
					if sum, ok := c.sums[g]; !ok || sum != rollback.Checksum(rollback.BytesOf(s)) {
						bad++
					}
				}
			}
			after, afterA := a.c.Stats(), hostA()
			t.Logf("%d forged, %d bad states, %d frames with a wrong input; a: %d mismatches, %d malformed; host's a: %d malformed",
				forged, bad, wrong, after.Mismatches-before.Mismatches, after.Link.Malformed-before.Link.Malformed,
				afterA.Link.Malformed-beforeA.Link.Malformed)
			require.LessOrEqual(t, bad, forged/16, "forged states applied")
			require.LessOrEqual(t, wrong, forged/16+10, "a's inputs replaced by forged ones")
			require.Greater(t, int(after.StatesApplied-before.StatesApplied), ticks/4, "a kept receiving the host's states")
			require.True(t, afterA.Connected)
			require.Equal(t, transport.Peer("a"), afterA.Peer, "no forged Hello moved a's record")
			require.Equal(t, uint64(1), c.h.Stats().Joined+c.h.Stats().Resumed-1, "no join nor resume but a's and b's")
			for _, nd := range c.nodes {
				for _, ev := range nd.c.Events(nil) {
					require.NotEqual(t, session.EventDisconnected, ev.Kind, nd.name)
				}
			}
			switch f.name {
			case "AuthInput", "Nack":
				require.GreaterOrEqual(t, int(afterA.Link.Malformed-beforeA.Link.Malformed), forged*9/10, "refused by the host")
			case "StateFragment":
				require.GreaterOrEqual(t, int(after.Link.Malformed-before.Link.Malformed), forged*9/10, "refused by a")
			}
		})
	}
}

// A client whose Hellos went unanswered for a while (the host was full)
// has counted its sequence numbers far past zero: the Hello that gets in
// anchors its connection, so its first input is taken, not refused as
// implausible.
func TestHelloAnchorsSequence(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 70, players: 1, link: local.Link{Latency: 10 * time.Millisecond}})
	z, err := c.net.Endpoint("z")
	require.NoError(t, err)
	require.NoError(t, z.Send("host", codec.Hello{Seq: 5000, Settings: c.h.Settings(), Nonce: 9}.Append(nil)))
	c.run(100 * time.Millisecond)
	f := int32(c.h.Frame())
	require.NoError(t, z.Send("host", codec.AuthInput{Seq: 5001, Ack: -1, Start: f + 2, Frames: 1, Slots: 1, Size: 2, Inputs: []byte{7, 0}}.Append(nil)))
	c.run(100 * time.Millisecond)
	s := c.h.clients[c.record("z")].clientStats(1)
	require.Zero(t, s.Link.Malformed)
	require.True(t, c.h.clients[c.record("z")].played, "its input was taken")
}
