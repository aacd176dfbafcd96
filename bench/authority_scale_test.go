package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// The host at scale: a 1024-entity world of 16-byte entities (16 KiB),
// eight of them moving every frame, at 1 to 256 clients, each player
// changing its input twice a second (at its own times) and steering one
// entity. ns/client is the
// host's cost per client per tick; the baseline is the physical floor of
// the same tick (one simulated frame, then per client a copy of the state
// and its CRC32-C). B/s/client is what the host sends each client.

type entities struct{ E [1024]entity }

func simEntities(w *entities, in []uint16, f rollnet.Frame) {
	for p, v := range in {
		e := &w.E[p%len(w.E)]
		e.VX = int32(int8(v))
	}
	for k := range 8 { // eight entities, spread over the world, move
		e := &w.E[k*len(w.E)/8+1]
		e.X += e.VX + 1
		e.Y -= e.VY + 1
	}
}

var scaleClients = []int{1, 4, 16, 64, 128, 256}

type scaleMatch struct {
	held    bool // the players hold their inputs
	clock   *local.Clock
	host    *authority.Host[entities, uint16]
	clients []*authority.Client[entities, uint16]
	f       int
}

// newScaleMatch: the host's queue holds every client's datagrams in flight
// (2048; a full one would drop some, and its eviction scans the senders).
func newScaleMatch(b *testing.B, clients int, held bool) *scaleMatch {
	m := &scaleMatch{clock: local.NewClock(authEpoch), held: held}
	network, err := local.NewNetwork(local.Config{Seed: 9, Now: m.clock.Now, Link: local.Link{Latency: 20 * time.Millisecond}, QueueLen: 2048})
	if err != nil {
		b.Fatal(err)
	}
	seed := uint64(0)
	net := rollnet.NetConfig{Now: m.clock.Now, Tuning: rollnet.NetTuning{Rand: func() uint64 { seed++; return seed * 0x9e3779b97f4a7c15 }}}
	hep, err := network.Endpoint("host")
	if err != nil {
		b.Fatal(err)
	}
	cfg := authority.HostConfig[uint16]{Players: clients, Net: net, Tuning: authority.HostTuning{MaxJoinsPerTick: 64}, MaxClientsPerAddress: clients}
	if m.host, err = authority.NewHost[entities, uint16](cfg, transport.Transport(hep), simEntities); err != nil {
		b.Fatal(err)
	}
	for i := range m.host.State().E {
		m.host.State().E[i] = entity{X: int32(i * 100), Y: int32(i * 7), VX: int32(i%5 - 2), VY: int32(i%3 - 1)}
	}
	for i := range clients {
		ep, err := network.Endpoint(fmt.Sprint("c", i))
		if err != nil {
			b.Fatal(err)
		}
		c, err := authority.NewClient[entities, uint16](authority.ClientConfig{Host: "host", Players: clients, Net: net}, ep, simEntities)
		if err != nil {
			b.Fatal(err)
		}
		m.clients = append(m.clients, c)
	}
	for range 180 { // join and settle
		m.tick(true)
	}
	for _, c := range m.clients {
		if !c.Synchronized() {
			b.Fatal("a client did not synchronize")
		}
	}
	return m
}

// tick advances the clock and ticks the clients, and the host when host.
func (m *scaleMatch) tick(host bool) {
	m.f++
	m.clock.Advance(time.Second / 60)
	if host {
		if err := m.host.AdvanceFrame(); err != nil {
			panic(err)
		}
	}
	for i, c := range m.clients {
		_ = c.AddLocalInput(0, input(i, (m.f+i*7)/30, !m.held))
		if err := c.AdvanceFrame(); err != nil {
			panic(err)
		}
	}
}

// BenchmarkAuthorityHostScale is one host tick (read every client's
// inputs, simulate, send each its delta-coded state) in the 1024-entity
// world; the clients tick outside the timer.
func BenchmarkAuthorityHostScale(b *testing.B) {
	for _, n := range scaleClients {
		b.Run(fmt.Sprintf("%dclients_1024entities", n), func(b *testing.B) {
			m := newScaleMatch(b, n, false)
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				m.tick(false)
				b.StartTimer()
				if err := m.host.AdvanceFrame(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(n), "ns/client")
		})
	}
}

// BenchmarkAuthorityStateBytesScale is what the host sends each client
// per second in the 1024-entity world, all told (states, the link's own
// messages, headers), with the players holding their inputs ("held": a
// client's bytes should not grow with the room) and pressing twice a
// second each ("pressed": the room's presses are news to every client).
// An op is a tick of the host and every client.
func BenchmarkAuthorityStateBytesScale(b *testing.B) {
	for _, held := range []bool{true, false} {
		for _, n := range []int{1, 16, 64} {
			b.Run(fmt.Sprintf("%s_%dclients", map[bool]string{true: "held", false: "pressed"}[held], n), func(b *testing.B) {
				m := newScaleMatch(b, n, held)
				sent := func() (s uint64) {
					for _, c := range m.host.Clients(nil) {
						s += c.Link.BytesSent
					}
					return s
				}
				before := sent()
				b.ReportAllocs()
				for b.Loop() {
					m.tick(true)
				}
				b.ReportMetric(float64(sent()-before)/float64(b.N)/float64(n)*60, "B/s/client")
			})
		}
	}
}

// BenchmarkAuthorityHostScaleBaselineCopy is the floor of the same tick:
// one simulated frame, then per client a copy of the state and its
// CRC32-C.
func BenchmarkAuthorityHostScaleBaselineCopy(b *testing.B) {
	for _, n := range scaleClients {
		b.Run(fmt.Sprintf("%dclients_1024entities", n), func(b *testing.B) {
			w, out := new(entities), new(entities)
			in := make([]uint16, n)
			b.ReportAllocs()
			f := 0
			for b.Loop() {
				f++
				simEntities(w, in, rollnet.Frame(f))
				for range n {
					*out = *w
					_ = rollback.Checksum(rollback.BytesOf(out))
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(n), "ns/client")
		})
	}
}
