package authority

import (
	"fmt"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// feed is a transport whose Receive hands out the datagrams queued on it
// and whose Send records what went out: the fuzz targets drive a host or a
// client with hostile bytes through it.
type feed struct {
	local transport.Peer
	in    []feedPacket
	sent  [][]byte
}

type feedPacket struct {
	from transport.Peer
	b    []byte
}

func (f *feed) Local() transport.Peer { return f.local }
func (f *feed) Send(to transport.Peer, b []byte) error {
	f.sent = append(f.sent, append([]byte(nil), b...))
	return nil
}
func (f *feed) Receive(buf []byte) (int, transport.Peer, error) {
	if len(f.in) == 0 {
		return 0, "", transport.ErrNoPacket
	}
	p := f.in[0]
	f.in = f.in[1:]
	if len(p.b) > len(buf) {
		return 0, "", transport.ErrShortBuffer
	}
	return copy(buf, p.b), p.from, nil
}
func (f *feed) Close() error { return nil }

// fuzzSeeds plays a host and a client over a lossy local network and
// returns what each sent: real encoder output to seed the targets.
func fuzzSeeds(t testing.TB) (toClient, toHost [][]byte) {
	link := local.Link{Latency: 20 * time.Millisecond, Loss: 0.05}
	c := newCluster(t, clusterOpts{seed: 61, players: 2, link: link})
	ep, err := c.net.Endpoint("a")
	if err != nil {
		t.Fatal(err)
	}
	tap := &tap{Transport: ep}
	seed := uint64(5)
	net := rollnet.NetConfig{Now: c.clock.Now, Tuning: rollnet.NetTuning{Rand: func() uint64 { seed = seed*6364136223846793005 + 1; return seed }}}
	cl, err := NewClient[world, uint16](ClientConfig{Host: "host", Players: 2, Net: net}, tap, simWorld)
	if err != nil {
		t.Fatal(err)
	}
	c.nodes = append(c.nodes, &node{name: "a", ep: ep, c: cl, input: mash(1, 3), next: c.clock.Now(), seen: rollnet.NoFrame})
	c.add("b", ClientConfig{}, mash(2, 4))
	c.run(2 * time.Second)
	return tap.in, tap.out
}

// tap records what passes through a transport.
type tap struct {
	transport.Transport
	in, out [][]byte
}

func (t *tap) Send(to transport.Peer, b []byte) error {
	t.out = append(t.out, append([]byte(nil), b...))
	return t.Transport.Send(to, b)
}

func (t *tap) Receive(buf []byte) (int, transport.Peer, error) {
	n, from, err := t.Transport.Receive(buf)
	if err == nil {
		t.in = append(t.in, append([]byte(nil), buf[:n]...))
	}
	return n, from, err
}

// stillNet is a clock that never moves and a Rand that always says 42.
var stillNet = rollnet.NetConfig{Now: func() time.Time { return epoch }, Tuning: rollnet.NetTuning{Rand: func() uint64 { return 42 }}}

// FuzzClientPackets feeds a synchronized-to-be client a Welcome and then
// arbitrary datagrams from its host: whatever they are, no panic, and a
// state is only ever taken whole (verified, or coded against a baseline
// it holds).
func FuzzClientPackets(f *testing.F) {
	toClient, _ := fuzzSeeds(f)
	for _, b := range toClient {
		f.Add(b)
	}
	f.Add(wire.Welcome{Kind: wire.WelcomeRefused, Nonce: 43,
		Host: wire.AuthSettings{Protocol: 2, Players: 2, StateSize: 8, InputSize: 2, FrameRate: 60}}.Append(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr := &feed{local: "me"}
		cl, err := NewClient[world, uint16](ClientConfig{Host: "host", Players: 2, Net: stillNet}, tr, simWorld)
		if err != nil {
			t.Fatal(err)
		}
		_ = cl.AdvanceFrame() // says Hello with nonce 43
		w := wire.Welcome{Kind: wire.WelcomeSync, Nonce: 43, Slots: 1, Frame: 5}
		tr.in = append(tr.in, feedPacket{"host", w.Append(nil)}, feedPacket{"host", b}, feedPacket{"stranger", b})
		for range 3 {
			_ = cl.AdvanceFrame()
			tr.in = append(tr.in, feedPacket{"host", b})
		}
	})
}

// FuzzHostPackets has a client join a host, then sends the host arbitrary
// datagrams from it and from a stranger: no panic, and nothing the host
// sends back exceeds a datagram.
func FuzzHostPackets(f *testing.F) {
	_, toHost := fuzzSeeds(f)
	for _, b := range toHost {
		f.Add(b)
	}
	f.Add(wire.Hello{Protocol: 2, Settings: 1, Nonce: 9}.Append(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr := &feed{local: "host"}
		h, err := NewHost[world, uint16](HostConfig[uint16]{Players: 2, Net: stillNet}, tr, simWorld)
		if err != nil {
			t.Fatal(err)
		}
		hello := wire.Hello{Protocol: protocol, Settings: h.Settings(), Nonce: 9}
		tr.in = append(tr.in, feedPacket{"c", hello.Append(nil)})
		for range 3 {
			tr.in = append(tr.in, feedPacket{"c", b}, feedPacket{"stranger", b})
			if err := h.AdvanceFrame(); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range tr.sent {
			if len(p) > transport.MaxDatagram {
				t.Fatalf("sent %d bytes", len(p))
			}
		}
	})
}

// FuzzLagCompHost has a client join a lag-compensated host, then sends
// it arbitrary datagrams (seeded with inputs whose sights are honest,
// too old, too new, absent or past the wire's reach): no panic, and every
// sight simulate is given names states the host sent, within the bound.
func FuzzLagCompHost(f *testing.F) {
	sight := func(ss ...wire.Sight) []byte {
		var b []byte
		for _, s := range ss {
			b = wire.AppendSight(b, s)
		}
		return b
	}
	for _, s := range [][]byte{
		sight(wire.Sight{Lag: 2*256 + 10, Gap: 1}, wire.Sight{Lag: 2*256 + 10, Gap: 1}, wire.Sight{Lag: 2*256 + 10, Gap: 1}),
		sight(wire.Sight{Lag: 0xfffe}, wire.Sight{Lag: wire.NoSight}, wire.Sight{Lag: 0, Down: 0, Gap: 255}),
		sight(wire.Sight{Lag: 40 * 256, Down: 200, Gap: 201}, wire.Sight{Lag: 1}, wire.Sight{Lag: 255 * 256, Down: 3, Gap: 9}),
	} {
		for start := range int32(4) {
			f.Add(wire.AuthInput{Seq: 1, Ack: -1, Start: start, Frames: 3, Slots: 1, Size: 2, Inputs: make([]byte, 6), Sights: s}.Append(nil))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tr := &feed{local: "host"}
		var bad string
		h, err := NewHostLagComp(HostConfig[uint16]{Players: 2, Net: stillNet, MaxRewind: 50 * time.Millisecond}, tr,
			func(s *world, in []uint16, f rollnet.Frame, seen *Sights[world]) {
				for p := range in {
					if sg, ok := seen.Of(p); ok {
						_ = sg.Lerp(sg.From.Pos[0], sg.To.Pos[0])
						if sg.ToFrame >= f || sg.FromFrame > sg.ToFrame || int64(f)*256-sg.T > 3*256 || sg.T < int64(sg.FromFrame)*256 {
							bad = fmt.Sprintf("frame %d: sight %d..%d at %d", f, sg.FromFrame, sg.ToFrame, sg.T)
						}
					}
				}
				simWorld(s, in, f)
			})
		if err != nil {
			t.Fatal(err)
		}
		hello := wire.Hello{Protocol: protocol, Settings: h.Settings(), Nonce: 9}
		tr.in = append(tr.in, feedPacket{"c", hello.Append(nil)})
		for range 6 {
			tr.in = append(tr.in, feedPacket{"c", b})
			if err := h.AdvanceFrame(); err != nil {
				t.Fatal(err)
			}
			if bad != "" {
				t.Fatal(bad)
			}
		}
	})
}
