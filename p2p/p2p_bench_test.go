package p2p

import (
	"fmt"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport/local"
)

func simNothing(*p2pWorld, []uint16, rollnet.Frame) {}

// BenchmarkP2PAdvanceFrame is the cost of one frame of one peer (input,
// AdvanceFrame, network both ways) without simulate: an op is one tick of
// every peer, so ns/frame is ns/op divided by the players.
func BenchmarkP2PAdvanceFrame(b *testing.B) {
	for _, players := range []int{2, 4} {
		b.Run(fmt.Sprintf("players=%d", players), func(b *testing.B) {
			c := newCluster(b, clusterOpts{players: players, seed: 30, mash: 0.1,
				link: local.Link{Latency: 20 * time.Millisecond},
				cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 32},
				sim:  func(int) func(*p2pWorld, []uint16, rollnet.Frame) { return simNothing }})
			c.frames(120, time.Minute)
			c.noSums = true
			for _, n := range c.nodes {
				n.events = make([]rollnet.Event, 0, 1<<16)
			}
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				c.run(time.Second / 60)
				for _, n := range c.nodes {
					n.events = n.events[:0]
				}
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*players), "ns/frame")
		})
	}
}

// BenchmarkP2PBaselineStep is the physical baseline of the above: the core
// session alone, given every input directly, without simulate.
func BenchmarkP2PBaselineStep(b *testing.B) {
	for _, players := range []int{2, 4} {
		b.Run(fmt.Sprintf("players=%d", players), func(b *testing.B) {
			s, err := session.New[p2pWorld](session.Config[uint16]{Players: players, InputDelay: 2, Capacity: 32}, simNothing)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				f := s.Frame() + 2
				_ = s.AddLocalInput(0, uint16(f))
				for p := 1; p < players; p++ {
					_ = s.AddRemoteInput(p, f, uint16(f))
				}
				_ = s.AdvanceFrame()
			}
		})
	}
}

// BenchmarkP2PBaselineCodec is the wire's share: encoding and decoding one
// input message of 8 frames, 1 player, as a peer sends each frame.
func BenchmarkP2PBaselineCodec(b *testing.B) {
	in := make([]byte, 16)
	for i := range in {
		in[i] = byte(i / 2)
	}
	m := wire.Input{Ack: 10, Start: 10, Frames: 8, Players: 1, Size: 2, Inputs: in}
	buf := make([]byte, 0, wire.MaxPacket)
	dst := make([]byte, wire.MaxFrames*2)
	b.ReportAllocs()
	for b.Loop() {
		buf = m.Append(buf[:0])
		out := wire.Input{Size: 2}
		if _, err := wire.ParseInput(buf, &out, dst, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// bandwidthCluster is two peers at 60 frames per second over a 50 ms link,
// past the handshake.
func bandwidthCluster(tb testing.TB, mash float64) *p2pCluster {
	c := newCluster(tb, clusterOpts{players: 2, seed: 31, mash: mash,
		link: local.Link{Latency: 50 * time.Millisecond, Jitter: 5 * time.Millisecond},
		cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 32}})
	c.frames(120, time.Minute)
	c.noSums = true
	for _, n := range c.nodes {
		n.events = make([]rollnet.Event, 0, 1<<16)
	}
	return c
}

// sentTo returns the bytes p0 has sent p1.
func sentTo(c *p2pCluster) uint64 {
	st, _ := c.nodes[0].p.PeerStats("p1")
	return st.BytesSent
}

// BenchmarkP2PBandwidth reports the bytes per second a peer sends each
// other peer at 60 frames per second, with held inputs (mash 0: the input
// never changes) and mashed ones (a new random input every frame). An op
// is one second of play of both peers.
func BenchmarkP2PBandwidth(b *testing.B) {
	for _, bc := range []struct {
		name string
		mash float64
	}{{"held", 0}, {"mashed", 1}} {
		b.Run(bc.name, func(b *testing.B) {
			c := bandwidthCluster(b, bc.mash)
			b.ReportAllocs()
			sent := sentTo(c)
			for b.Loop() {
				c.run(time.Second)
				for _, n := range c.nodes {
					n.events = n.events[:0]
				}
			}
			b.ReportMetric(float64(sentTo(c)-sent)/float64(b.N), "B/s/peer")
		})
	}
}

// TestP2PBandwidth prints the bytes per second per peer (run with -v).
func TestP2PBandwidth(t *testing.T) {
	var rates [2]float64
	for i, mash := range []float64{0, 1} {
		c := bandwidthCluster(t, mash)
		sent := sentTo(c)
		c.run(10 * time.Second)
		rates[i] = float64(sentTo(c)-sent) / 10
	}
	held, mashed := rates[0], rates[1]
	t.Logf("bytes/s per peer at 60 fps, 50 ms link: held %.0f, mashed %.0f", held, mashed)
	if held > 1800 || mashed > 4000 {
		t.Errorf("more bytes than expected: held %.0f, mashed %.0f", held, mashed)
	}
}
