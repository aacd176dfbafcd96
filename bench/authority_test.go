package main

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	game "github.com/rollnet/rollnet/internal/ponggame"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// The server-authoritative rows: a host's tick with 8 clients in a
// 128-entity world, a client's tick with and without a mismatch to
// correct, and the bytes per second a client receives with delta-coded
// versus full states. Each has its physical baseline in the same run.

// arena is a 128-entity world (2 KiB): every entity moves each frame, and
// each player steers one.
type arena struct {
	E     [128]entity
	Frame int32
	_     [4]byte
}

type entity struct{ X, Y, VX, VY int32 }

func simArena(w *arena, in []uint16, f rollnet.Frame) {
	for p, v := range in {
		e := &w.E[p%len(w.E)]
		e.VX, e.VY = int32(int8(v)), int32(int8(v>>8))
	}
	for i := range w.E {
		e := &w.E[i]
		e.X += e.VX
		e.Y += e.VY
		if e.X > 1<<20 || e.X < -1<<20 {
			e.VX = -e.VX
		}
	}
	w.Frame = int32(f)
}

const authClients = 8

var authEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// authMatch is a host and clients over a quiet local network on a fake
// clock.
type authMatch struct {
	clock   *local.Clock
	net     *local.Network
	host    *authority.Host[arena, uint16]
	clients []*authority.Client[arena, uint16]
	f       int
}

func newAuthMatch(b *testing.B, players, clients int, link local.Link) *authMatch {
	m := &authMatch{clock: local.NewClock(authEpoch)}
	var err error
	if m.net, err = local.NewNetwork(local.Config{Seed: 9, Now: m.clock.Now, Link: link, QueueLen: 1024}); err != nil {
		b.Fatal(err)
	}
	seed := uint64(0)
	net := rollnet.NetConfig{Now: m.clock.Now, Tuning: rollnet.NetTuning{Rand: func() uint64 { seed++; return seed * 0x9e3779b97f4a7c15 }}}
	hep, err := m.net.Endpoint("host")
	if err != nil {
		b.Fatal(err)
	}
	if m.host, err = authority.NewHost[arena, uint16](authority.HostConfig[uint16]{Players: players, Net: net}, transport.Transport(hep), simArena); err != nil {
		b.Fatal(err)
	}
	for i := range m.host.State().E {
		m.host.State().E[i] = entity{X: int32(i * 100), Y: int32(i * 7), VX: int32(i%5 - 2), VY: int32(i%3 - 1)}
	}
	for i := range clients {
		ep, err := m.net.Endpoint(fmt.Sprint("c", i))
		if err != nil {
			b.Fatal(err)
		}
		c, err := authority.NewClient[arena, uint16](authority.ClientConfig{Host: "host", Players: players, Net: net}, ep, simArena)
		if err != nil {
			b.Fatal(err)
		}
		m.clients = append(m.clients, c)
	}
	for range 120 { // join and settle
		m.tickAll()
	}
	for _, c := range m.clients {
		if !c.Synchronized() {
			b.Fatal("a client did not synchronize")
		}
	}
	return m
}

// input is client i's input at tick f: steady, or changing every tick.
func input(i, f int, changing bool) uint16 {
	if changing {
		return uint16(f*31+i) & 0x0303
	}
	return uint16(i+1) & 0x0303
}

func (m *authMatch) tickHost() {
	if err := m.host.AdvanceFrame(); err != nil {
		panic(err)
	}
}

func (m *authMatch) tickClient(i int, changing bool) {
	c := m.clients[i]
	_ = c.AddLocalInput(0, input(i, m.f, changing))
	if err := c.AdvanceFrame(); err != nil {
		panic(err)
	}
}

func (m *authMatch) tickAll() {
	m.f++
	m.clock.Advance(time.Second / 60)
	m.tickHost()
	for i := range m.clients {
		m.tickClient(i, false)
	}
}

// BenchmarkAuthorityHostTick is one host tick (read every client's inputs,
// simulate, send each client its delta-coded state) with 8 clients in a
// 128-entity world; ns/client is the cost per client. The clients tick
// outside the timer.
func BenchmarkAuthorityHostTick(b *testing.B) {
	b.Run("8clients_128entities", func(b *testing.B) {
		m := newAuthMatch(b, authClients, authClients, local.Link{Latency: 20 * time.Millisecond})
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			m.f++
			m.clock.Advance(time.Second / 60)
			for i := range m.clients {
				m.tickClient(i, true)
			}
			b.StartTimer()
			m.tickHost()
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/authClients, "ns/client")
	})
}

// BenchmarkAuthorityHostTickBaselineCopy is the physical floor of a host
// tick: one simulated frame, then per client a copy of the state and its
// CRC32-C.
func BenchmarkAuthorityHostTickBaselineCopy(b *testing.B) {
	b.Run("8clients_128entities", func(b *testing.B) {
		var w, out arena
		in := make([]uint16, authClients)
		b.ReportAllocs()
		f := 0
		for b.Loop() {
			f++
			simArena(&w, in, rollnet.Frame(f))
			for range authClients {
				out = w
				_ = rollback.Checksum(rollback.BytesOf(&out))
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/authClients, "ns/client")
	})
}

// BenchmarkAuthorityClientTick is one client tick with a host state to
// reconcile: "match" when the others' inputs hold (the prediction was
// right: a compare), "mismatch" when they change every tick (restore the
// host's state and re-simulate a round trip of frames).
func BenchmarkAuthorityClientTick(b *testing.B) {
	for _, changing := range []bool{false, true} {
		name := map[bool]string{false: "match", true: "mismatch"}[changing]
		b.Run(name, func(b *testing.B) {
			m := newAuthMatch(b, 2, 2, local.Link{Latency: 50 * time.Millisecond})
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				m.f++
				m.clock.Advance(time.Second / 60)
				m.tickHost()
				m.tickClient(1, changing)
				b.StartTimer()
				m.tickClient(0, false)
			}
			st := m.clients[0].Stats()
			b.ReportMetric(float64(st.Mismatches)/float64(st.Matches+st.Mismatches), "mismatch/state")
			b.ReportMetric(float64(st.ResimulatedFrames)/float64(max(st.Mismatches, 1)), "frames/resim")
		})
	}
}

// BenchmarkAuthorityClientTickBaselineSimulate is one simulated frame of
// the same world: what a client tick costs at the least.
func BenchmarkAuthorityClientTickBaselineSimulate(b *testing.B) {
	for _, name := range []string{"match", "mismatch"} {
		b.Run(name, func(b *testing.B) {
			var w arena
			in := make([]uint16, 2)
			b.ReportAllocs()
			f := 0
			for b.Loop() {
				f++
				simArena(&w, in, rollnet.Frame(f))
			}
		})
	}
}

// BenchmarkAuthorityStateBytes measures what one client receives per
// second at 60 Hz in the 128-entity world with every entity moving: "delta"
// is a client that acknowledges (states XORed against its baseline, range
// coded); "full" is a peer that never does (every state whole). An
// op is a host tick.
func BenchmarkAuthorityStateBytes(b *testing.B) {
	b.Run("delta", func(b *testing.B) {
		m := newAuthMatch(b, 1, 1, local.Link{Latency: 20 * time.Millisecond})
		before := m.host.Clients(nil)[0].Link.BytesSent
		b.ReportAllocs()
		for b.Loop() {
			m.tickAll()
		}
		sent := m.host.Clients(nil)[0].Link.BytesSent - before
		b.ReportMetric(float64(sent)/float64(b.N)*60, "B/s/client")
	})
	b.Run("full", func(b *testing.B) {
		m := newAuthMatch(b, 1, 0, local.Link{Latency: 20 * time.Millisecond})
		raw, err := m.net.Endpoint("raw")
		if err != nil {
			b.Fatal(err)
		}
		hello := wire.Hello{Protocol: authority.Protocol, Settings: m.host.Settings(), Nonce: 1}.Append(nil)
		if err := raw.Send("host", hello); err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, transport.MaxDatagram)
		marker := make([]byte, 0, wire.MaxPacket)
		var got uint64
		round := func() {
			m.tickAll()
			for {
				n, _, err := raw.Receive(buf)
				if errors.Is(err, transport.ErrNoPacket) {
					break
				}
				got += uint64(n)
			}
			// A frame marker that acknowledges nothing: every state full.
			marker = wire.AuthInput{Ack: -1, Start: int32(m.host.Frame()), Slots: 1, Size: 2}.Append(marker[:0])
			_ = raw.Send("host", marker)
		}
		for range 30 { // the link directions' first datagrams allocate, once
			round()
		}
		got = 0
		b.ReportAllocs()
		for b.Loop() {
			round()
		}
		b.ReportMetric(float64(got)/float64(b.N)*60, "B/s/client")
	})
}

// pongSimulate is demo/pong's authority simulation: three slots (the
// host's paddle, the client's, a spectator's unused), two paddles played.
func pongSimulate(s *game.State, in []game.Input, _ rollnet.Frame) {
	game.Step(s, [2]game.Input{in[0], in[1]})
}

// BenchmarkAuthorityPongBytes is what demo/pong's host sends its client
// per second, all told (states, the link's own messages, headers), with
// both paddles played by the demo's bot over a quiet 20 ms link, in the
// demo's host configuration (three slots, one its own, LateRollback). An
// op is a tick of the host and the client.
func BenchmarkAuthorityPongBytes(b *testing.B) {
	newPong := func(b *testing.B) (*local.Clock, *authority.Host[game.State, game.Input], *authority.Client[game.State, game.Input]) {
		clock := local.NewClock(authEpoch)
		network, err := local.NewNetwork(local.Config{Seed: 9, Now: clock.Now, Link: local.Link{Latency: 20 * time.Millisecond}})
		if err != nil {
			b.Fatal(err)
		}
		seed := uint64(0)
		net := rollnet.NetConfig{Now: clock.Now, Tuning: rollnet.NetTuning{Rand: func() uint64 { seed++; return seed * 0x9e3779b97f4a7c15 }}}
		hep, err := network.Endpoint("host")
		if err != nil {
			b.Fatal(err)
		}
		h, err := authority.NewHost[game.State, game.Input](authority.HostConfig[game.Input]{Players: 3, LocalPlayers: 1,
			LateInput: authority.LateRollback, Net: net}, transport.Transport(hep), pongSimulate)
		if err != nil {
			b.Fatal(err)
		}
		*h.State() = game.NewState(7)
		ep, err := network.Endpoint("c")
		if err != nil {
			b.Fatal(err)
		}
		c, err := authority.NewClient[game.State, game.Input](authority.ClientConfig{Host: "host", Players: 3, Net: net}, ep, pongSimulate)
		if err != nil {
			b.Fatal(err)
		}
		return clock, h, c
	}
	tick := func(clock *local.Clock, h *authority.Host[game.State, game.Input], c *authority.Client[game.State, game.Input]) {
		clock.Advance(time.Second / 60)
		_ = h.AddLocalInput(0, game.Bot(h.State(), 0))
		if err := h.AdvanceFrame(); err != nil {
			panic(err)
		}
		if c.Synchronized() {
			_ = c.AddLocalInput(0, game.Bot(c.State(), 1))
		}
		if err := c.AdvanceFrame(); err != nil {
			panic(err)
		}
	}
	b.Run("delta", func(b *testing.B) {
		clock, h, c := newPong(b)
		for range 600 { // join, settle, and the first serve
			tick(clock, h, c)
		}
		before := h.Clients(nil)[0].Link.BytesSent
		b.ReportAllocs()
		for b.Loop() {
			tick(clock, h, c)
		}
		b.ReportMetric(float64(h.Clients(nil)[0].Link.BytesSent-before)/float64(b.N)*60, "B/s/client")
	})
}
