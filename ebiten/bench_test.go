package rollebiten_test

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
)

// BenchmarkUpdate is one tick of a two-player P2P match on a local
// network (both peers, a frame of fake time), rolling back: bare netplay
// (two AdvanceFrame calls, the input as a value) beside the adapter (two
// Game.Update calls: the input read, AdvanceFrame, the graph's sample,
// the View). The difference is the adapter's cost per tick.
func BenchmarkUpdate(b *testing.B) {
	b.Run("netplay", func(b *testing.B) {
		l := newLAN(link)
		var ms [2]*netplay.Match[World, Buttons]
		ins := [2]func() Buttons{sway(), sway()}
		for i, name := range []string{"a", "b"} {
			ep, err := l.net.Endpoint(name)
			if err != nil {
				b.Fatal(err)
			}
			ms[i], err = netplay.Join[World, Buttons](netplay.Config{
				Transport: ep, Peers: []transport.Peer{transport.Peer("ab"[1-i : 2-i])}, Now: l.clock.Now,
				Players: 2, Room: "r", InputDelay: netplay.DelayBounds{Min: 1, Max: 1},
			}, simulate)
			if err != nil {
				b.Fatal(err)
			}
			defer ms[i].Close()
		}
		tick := func() {
			for i, m := range ms {
				if _, err := m.AdvanceFrame(ins[i]()); err != nil {
					b.Fatal(err)
				}
			}
			l.clock.Advance(time.Second / 60)
		}
		for ms[0].Frame() < 200 {
			tick()
		}
		b.ReportAllocs()
		for b.Loop() {
			tick()
		}
	})
	b.Run("rollebiten", func(b *testing.B) {
		p := newPair(b, sway)
		for p.a.Status().Frame < 200 {
			p.tick(b)
		}
		b.ReportAllocs()
		for b.Loop() {
			p.tick(b)
			_, _ = p.a.View(), p.b.View()
		}
	})
}
