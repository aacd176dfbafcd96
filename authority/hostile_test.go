package authority

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// drain reads and counts what an endpoint received.
func drain(ep local.Endpoint) (n int, kinds map[wire.Type]int) {
	kinds = map[wire.Type]int{}
	buf := make([]byte, transport.MaxDatagram)
	for {
		k, _, err := ep.Receive(buf)
		if errors.Is(err, transport.ErrNoPacket) {
			return n, kinds
		}
		require.NoError(nil, err)
		n++
		typ, _, _, _ := wire.ParseHeader(buf[:k])
		kinds[typ]++
	}
}

// Hostile peers: random bytes, floods of Hello (wrong and right settings),
// of resume Hellos with forged tokens from many addresses, and a client
// that forges slots, claims absurd frames, acknowledges states never sent
// and floods Nacks. No panic; every reply bounded and counted; the honest
// clients' states stay the host's (checked on every one by the cluster).
func TestHostileClients(t *testing.T) {
	link := local.Link{Latency: 20 * time.Millisecond, Jitter: 3 * time.Millisecond, Loss: 0.01}
	net := rollnet.NetConfig{DisconnectTimeout: 2 * time.Second, DisconnectNotify: 500 * time.Millisecond}
	c := newCluster(t, clusterOpts{seed: 51, players: 4, link: link, queue: 4096, host: HostConfig[uint16]{Net: net}})
	a := c.add("a", ClientConfig{}, mash(1, 3))
	b := c.add("b", ClientConfig{}, mash(2, 4))
	c.run(2 * time.Second)
	rng := rand.New(rand.NewPCG(1, 2))

	// Strangers: random bytes and Hellos with the wrong settings get nothing.
	evil, err := c.net.Endpoint("evil")
	require.NoError(t, err)
	for range 40 {
		for range 50 {
			junk := make([]byte, 1+rng.IntN(transport.MaxDatagram))
			for i := range junk {
				junk[i] = byte(rng.Uint32())
			}
			_ = evil.Send("host", junk)
			_ = evil.Send("host", wire.Hello{Protocol: protocol, Settings: c.h.Settings() + 1, Nonce: rng.Uint64()}.Append(nil))
			_ = evil.Send("host", wire.Nack{Msg: rng.Uint32(), Missing: 1}.Append(nil))
		}
		c.run(tick)
	}
	got, evilKinds := drain(evil)
	require.Equal(t, 1, got, "a stranger's junk gets no reply, its wrong Hellos one refusal a second")
	require.Equal(t, 1, evilKinds[wire.TypeWelcome])
	require.Equal(t, uint64(1), c.h.Stats().RefusalsSent)
	hs := c.h.Stats()
	require.Greater(t, hs.UnknownPackets+hs.HellosRefused+hs.HellosDropped, uint64(4000))
	require.Greater(t, hs.UnknownPackets, uint64(1000))

	// Resume Hellos with forged tokens from 50 addresses: two records are
	// free, so two get RESUME_REJECT and an INITIAL_SYNC (copies bounded);
	// the rest nothing.
	var spoofs []local.Endpoint
	for i := range 50 {
		ep, err := c.net.Endpoint("spoof" + strconv.Itoa(i))
		require.NoError(t, err)
		spoofs = append(spoofs, ep)
		var tok [wire.TokenLen]byte
		for k := range tok {
			tok[k] = byte(rng.Uint32())
		}
		for range 20 {
			_ = ep.Send("host", wire.Hello{Protocol: protocol, Settings: c.h.Settings(), Nonce: rng.Uint64(), Resume: true, Token: tok}.Append(nil))
		}
	}
	c.run(time.Second)
	answered, welcomes := 0, 0
	for _, ep := range spoofs {
		_, kinds := drain(ep)
		if kinds[wire.TypeWelcome] > 0 {
			answered++
		}
		welcomes += kinds[wire.TypeWelcome]
	}
	require.Equal(t, 2, answered, "only free records answer")
	require.LessOrEqual(t, welcomes, 2*2*3, "a Reject and a Sync, three copies each, per answered address")

	// The spoofed records never played: freed once their connection is
	// gone (DisconnectTimeout), not held for the 20 s grace window.
	c.run(2500 * time.Millisecond)
	require.Equal(t, uint64(2), c.h.Stats().Expired)

	// A client that joins properly, then misbehaves.
	mal, err := c.net.Endpoint("mal")
	require.NoError(t, err)
	require.NoError(t, mal.Send("host", wire.Hello{Protocol: protocol, Settings: c.h.Settings(), Nonce: 7}.Append(nil)))
	c.run(200 * time.Millisecond)
	_, kinds := drain(mal)
	welcomes = kinds[wire.TypeWelcome]
	require.NotZero(t, welcomes)
	var me HostClientStats
	for _, s := range c.h.Clients(nil) {
		if s.Peer == "mal" {
			me = s
		}
	}
	require.Equal(t, transport.Peer("mal"), me.Peer)
	f := int32(c.h.Frame())
	attacks := [][]byte{
		wire.AuthInput{Ack: -1, Start: f, Frames: 1, Slots: 2, Size: 2, Inputs: []byte{1, 0, 1, 0}}.Append(nil), // another's slot too
		wire.AuthInput{Ack: -1, Start: 1 << 30, Frames: 1, Slots: 1, Size: 2, Inputs: []byte{1, 0}}.Append(nil), // absurd frame
		wire.AuthInput{Ack: f + 1000, Start: f, Frames: 1, Slots: 1, Size: 2, Inputs: []byte{1, 0}}.Append(nil), // ack of a state never sent
		wire.AuthInput{Ack: -1, Start: f, Frames: 1, Slots: 1, Size: 4, Inputs: []byte{1, 0, 0, 0}}.Append(nil), // another input size
	}
	sent := 0
	buf := make([]byte, transport.MaxDatagram)
	newest := uint32(0) // the newest state body mal saw: its Nacks aim there
	for range 100 {
		for {
			k, _, err := mal.Receive(buf)
			if err != nil {
				break
			}
			if fr, _, err := wire.ParseStateFragment(buf[:k]); err == nil {
				newest = max(newest, fr.Msg)
			}
		}
		for _, p := range attacks {
			_ = mal.Send("host", p)
			sent++
		}
		for range 40 {
			_ = mal.Send("host", wire.Hello{Protocol: protocol, Settings: c.h.Settings(), Nonce: rng.Uint64()}.Append(nil))
			_ = mal.Send("host", wire.Nack{Msg: newest - uint32(rng.IntN(2)), Missing: ^uint64(0)}.Append(nil))
			sent += 2
		}
		c.run(tick)
	}
	replies, kinds := drain(mal)
	replies += int(me.StatesSent) // read in the loop: bounded by the next checks anyway
	_ = replies
	for _, s := range c.h.Clients(nil) {
		if s.Peer == "mal" {
			me = s
		}
	}
	t.Logf("mal sent %d, got %d replies %v; host view %+v", sent, replies, kinds, me)
	require.GreaterOrEqual(t, me.Link.Malformed, uint64(300))
	require.Greater(t, me.HellosIgnored, uint64(1000))
	require.NotZero(t, me.Flooded, "past MaxPacketsPerTick, not even read")
	require.LessOrEqual(t, welcomes+kinds[wire.TypeWelcome], 3, "one answer per connection (three copies), whatever the Hellos")
	// Each state the host sent mal is one fragment here; Nacks resend at
	// most three times each, whatever mal asks.
	require.LessOrEqual(t, me.FragmentsResent, 3*me.StatesSent)
	require.LessOrEqual(t, kinds[wire.TypeStateFragment], int(me.StatesSent+me.FragmentsResent))
	require.LessOrEqual(t, replies, int(me.StatesSent+me.FragmentsResent)+200, "states, repairs, and the link's own")

	// The honest clients never noticed.
	c.run(2 * time.Second)
	for _, nd := range []*node{a, b} {
		st := nd.c.Stats()
		require.True(t, st.Synchronized)
		require.Zero(t, st.Malformed)
	}
	require.Greater(t, c.checked, 1000)
}

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
// delta-coded on it fail their checksum until the client's acks move on;
// under this flood a keeps more than three quarters of the host's states
// (before a body had to verify to move the reassembler on, a forged body
// number far ahead froze it: 231 of 600). With
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
			return wire.AuthInput{Seq: seq(rng), Ack: int32(hc.sentUpTo), Start: int32(hc.heard + 1), Frames: 1, Slots: 1, Size: 2, Inputs: in}.Append(nil)
		}},
		{"Nack", "host", func(rng *rand.Rand, c *cluster) []byte {
			return wire.Nack{Seq: seq(rng), Msg: c.h.clients[c.record("a")].out.next - 1, Missing: ^uint64(0)}.Append(nil)
		}},
		{"Hello", "host", func(rng *rand.Rand, c *cluster) []byte {
			return wire.Hello{Protocol: protocol, Seq: seq(rng), Settings: c.h.Settings(), Nonce: rng.Uint64(), Resume: true, Token: c.h.clients[c.record("a")].token}.Append(nil)
		}},
		{"StateFragment", "a", func(rng *rand.Rand, c *cluster) []byte {
			cl := c.nodes[0].c
			var w world
			w.H = rng.Uint64()
			b := rollback.BytesOf(&w)
			body := wire.StateBody{Frame: int32(cl.newestHost + 1), Base: -1, Checked: true, InputAck: int32(cl.frame),
				Checksum: rollback.Checksum(b), Data: append([]byte{1, 2, 3, 4}, b...)}
			if rng.IntN(2) == 0 { // the last of two fragments of a body numbered at random
				return wire.StateFragment{Seq: seq(rng), Msg: rng.Uint32(), Index: 1, Count: 2, Chunk: body.Append(nil)}.Append(nil)
			}
			return wire.StateFragment{Seq: seq(rng), Count: 1, Chunk: body.Append(nil)}.Append(nil)
		}},
		{"Welcome", "a", func(rng *rand.Rand, c *cluster) []byte {
			return wire.Welcome{Seq: seq(rng), Kind: wire.WelcomeReject, Nonce: rng.Uint64()}.Append(nil)
		}},
	}
	for _, at := range []string{"host", "a"} {
		forgeries = append(forgeries,
			forgery{"QualityReport@" + at, at, func(rng *rand.Rand, c *cluster) []byte {
				return wire.QualityReport{Seq: seq(rng), Ping: rng.Uint64()}.Append(nil)
			}},
			forgery{"QualityReply@" + at, at, func(rng *rand.Rand, c *cluster) []byte {
				return wire.QualityReply{Seq: seq(rng), Pong: rng.Uint64()}.Append(nil)
			}},
			forgery{"KeepAlive@" + at, at, func(rng *rand.Rand, c *cluster) []byte {
				return wire.KeepAlive{Seq: seq(rng)}.Append(nil)
			}},
			forgery{"Disconnect@" + at, at, func(rng *rand.Rand, c *cluster) []byte {
				return wire.Disconnect{Seq: seq(rng)}.Append(nil)
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
			c.add("b", ClientConfig{}, func(rollnet.Frame) uint16 { return 5 })
			c.run(3 * time.Second)
			require.True(t, a.c.Synchronized())
			ra := c.record("a")
			hostA := func() HostClientStats { return c.h.clients[ra].clientStats(1) }
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
					if sum, ok := c.sums.Sum(g); !ok || sum != rollback.Checksum(rollback.BytesOf(s)) {
						bad++
					}
				}
			}
			after, afterA := a.c.Stats(), hostA()
			t.Logf("%d forged, %d bad states, %d frames with a wrong input; a: %d states applied, %d mismatches, %d malformed; host's a: %d malformed",
				forged, bad, wrong, after.StatesApplied-before.StatesApplied, after.Mismatches-before.Mismatches, after.Link.Malformed-before.Link.Malformed,
				afterA.Link.Malformed-beforeA.Link.Malformed)
			require.LessOrEqual(t, bad, forged/16, "forged states applied")
			require.LessOrEqual(t, wrong, forged/16+10, "a's inputs replaced by forged ones")
			require.Greater(t, int(after.StatesApplied-before.StatesApplied), ticks*3/4, "a kept receiving the host's states")
			require.True(t, afterA.Connected)
			require.Equal(t, transport.Peer("a"), afterA.Peer, "no forged Hello moved a's record")
			require.Equal(t, uint64(1), c.h.Stats().Joined+c.h.Stats().Rejoined-1, "no join nor resume but a's and b's")
			for _, nd := range c.nodes {
				for _, ev := range nd.c.Events(nil) {
					require.NotEqual(t, rollnet.EventDisconnected, ev.Kind, nd.name)
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
	require.NoError(t, z.Send("host", wire.Hello{Protocol: protocol, Seq: 5000, Settings: c.h.Settings(), Nonce: 9}.Append(nil)))
	c.run(100 * time.Millisecond)
	f := int32(c.h.Frame())
	require.NoError(t, z.Send("host", wire.AuthInput{Seq: 5001, Ack: -1, Start: f + 2, Frames: 1, Slots: 1, Size: 2, Inputs: []byte{7, 0}}.Append(nil)))
	c.run(100 * time.Millisecond)
	s := c.h.clients[c.record("z")].clientStats(1)
	require.Zero(t, s.Link.Malformed)
	require.True(t, c.h.clients[c.record("z")].played, "its input was taken")
}

// Strangers flooding Hellos with the wrong settings (no answer is owed
// them) cannot use up the joins a tick allows: an honest client's Hello,
// sent among them every tick, gets its answer at once.
func TestWrongHellosDoNotStarveJoins(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 71, players: 2, link: local.Link{Latency: 10 * time.Millisecond}})
	var strangers []local.Endpoint
	for i := range 4 {
		ep, err := c.net.Endpoint("stranger" + strconv.Itoa(i))
		require.NoError(t, err)
		strangers = append(strangers, ep)
	}
	z, err := c.net.Endpoint("z")
	require.NoError(t, err)
	for k := range 10 {
		for _, ep := range strangers {
			for range 4 {
				require.NoError(t, ep.Send("host", wire.Hello{Protocol: protocol, Settings: c.h.Settings() ^ 1, Nonce: uint64(k)}.Append(nil)))
			}
		}
		require.NoError(t, z.Send("host", wire.Hello{Protocol: protocol, Settings: c.h.Settings(), Nonce: 3}.Append(nil)))
		c.run(tick)
		require.Equal(t, uint64(1), c.h.Stats().Joined, "the honest Hello got in at once")
	}
	require.Equal(t, uint64(160), c.h.Stats().HellosRefused)
	require.Zero(t, c.h.Stats().HellosDropped)
}

// An acknowledgement forged with a plausible sequence number (the one
// forgery in 32 that gets through) names a state the client never
// received: the host codes the next states against it, and the client
// cannot decode them. The client's next real packet heals it (its own ack
// is the newest packet's, not the greatest ever), so only a state or two
// is lost; taking the greatest ever, every state for a baseline window
// (32 frames) would be.
func TestForgedAckHeals(t *testing.T) {
	c, a, hc, spoof := oneSpoofed(t, 72, "host")
	// The host's states stop reaching a for a moment: the newest it sent
	// is one a never got.
	require.NoError(t, c.net.SetLink("host", "a", local.Link{Latency: 20 * time.Millisecond, Loss: 1}))
	c.run(100 * time.Millisecond)
	require.NoError(t, c.net.SetLink("host", "a", local.Link{Latency: 20 * time.Millisecond}))
	before := a.c.Stats()
	spoof.forged = append(spoof.forged, wire.AuthInput{Seq: a.c.l.Seq(), Ack: int32(hc.sentUpTo), Start: int32(hc.heard), Frames: 0, Slots: 1, Size: 2}.Append(nil))
	c.run(2 * time.Second)
	after := a.c.Stats()
	t.Logf("states dropped %d, applied %d", after.StatesDropped-before.StatesDropped, after.StatesApplied-before.StatesApplied)
	require.LessOrEqual(t, after.StatesDropped-before.StatesDropped, uint64(4))
}

// A state forged with a plausible sequence number and a valid checksum
// (the one forgery in 32 that gets through) claims the host holds the
// client's inputs far ahead, so the client would stop sending them. The
// next real state heals it (the client takes the newest state's claim,
// not the greatest ever): the host misses a frame or two of the client's
// inputs, not a hundred.
func TestForgedInputAckHeals(t *testing.T) {
	c, a, hc, spoof := oneSpoofed(t, 73, "a")
	before := hc.stats
	var w world
	b := rollback.BytesOf(&w)
	body := wire.StateBody{Frame: int32(a.c.newestHost + 1), Base: -1, Checked: true, InputAck: int32(a.c.frame + 100),
		Checksum: rollback.Checksum(b), Data: append([]byte{0, 0}, b...)}
	spoof.forged = append(spoof.forged, wire.StateFragment{Seq: hc.l.Seq(), Count: 1, Chunk: body.Append(nil)}.Append(nil))
	c.noCheck = true // the forged state is applied, once
	c.run(2 * time.Second)
	lost := hc.stats.InputsLost - before.InputsLost
	predicted := hc.stats.PredictedInputs - before.PredictedInputs
	t.Logf("inputs lost %d, predicted %d", lost, predicted)
	require.LessOrEqual(t, predicted, uint64(3))
}

// oneSpoofed is a host and one client, a, over a 20 ms link, playing for
// two seconds; the transport of at ("host" or "a") also delivers what is
// forged into the returned spoofed, as if from the other end.
func oneSpoofed(t *testing.T, seed uint64, at string) (*cluster, *node, *hostClient[uint16], *spoofed) {
	var spoof *spoofed
	other := map[string]transport.Peer{"host": "a", "a": "host"}[at]
	c := newCluster(t, clusterOpts{seed: seed, players: 1, link: local.Link{Latency: 20 * time.Millisecond},
		wrap: func(name string, tr transport.Transport) transport.Transport {
			if name != at {
				return tr
			}
			spoof = &spoofed{Transport: tr, from: other}
			return spoof
		}})
	a := c.add("a", ClientConfig{}, mash(1, 3))
	c.run(2 * time.Second)
	return c, a, c.h.clients[c.record("a")], spoof
}
