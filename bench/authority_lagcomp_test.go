package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/transport/local"
)

// The lag-compensation row: the host's CPU per rewound shot (Sights.Of,
// then a hit test against the 128 entities blended where the shooter saw
// them) beside one simulate step of the same world, in the same run.

// gallery is the 128-entity arena with each player's hits.
type gallery struct {
	A    arena
	Hits [authClients]int32
}

// shotFire is the fire bit of a gallery input; the rest steers as arena's.
const shotFire = 0x8000

// shotRadius is a hit's reach, in arena units.
const shotRadius = 40

// rewindShot judges a shot at (ax, ay) against every entity as sg saw
// them (the game's hit test, a whole scan: its cost bounded by the
// entities) and returns how many it hit.
func rewindShot(sg authority.Sight[gallery], ax, ay int32) int32 {
	var n int32
	for i := range sg.From.A.E {
		a, b := &sg.From.A.E[i], &sg.To.A.E[i]
		dx, dy := sg.Lerp(a.X, b.X)-ax, sg.Lerp(a.Y, b.Y)-ay
		if dx > -shotRadius && dx < shotRadius && dy > -shotRadius && dy < shotRadius {
			n++
		}
	}
	return n
}

// simGallery steps the arena; a player firing aims at entity p+1's place
// (its neighbour's, seen where the sight says). With spent, the shots are
// timed together (the clock costs about 400 ns a reading here: once a
// frame, not once a shot).
func simGallery(w *gallery, in []uint16, f rollnet.Frame, seen *authority.Sights[gallery], spent *time.Duration, shots *int) {
	var t0 time.Time
	if spent != nil {
		t0 = time.Now()
	}
	n := 0
	for p, v := range in {
		if v&shotFire == 0 {
			continue
		}
		n++
		e := w.A.E[(p+1)%len(w.A.E)]
		if sg, ok := seen.Of(p); ok {
			w.Hits[p] += rewindShot(sg, e.X, e.Y)
		}
	}
	if spent != nil && n > 0 {
		*spent += time.Since(t0)
		*shots += n
	}
	for p, v := range in {
		e := &w.A.E[p%len(w.A.E)]
		v &^= shotFire
		e.VX, e.VY = int32(int8(v)), int32(int8(v>>8))
	}
	for i := range w.A.E {
		e := &w.A.E[i]
		e.X += e.VX
		e.Y += e.VY
		if e.X > 1<<20 || e.X < -1<<20 {
			e.VX = -e.VX
		}
	}
	w.A.Frame = int32(f)
}

// BenchmarkAuthorityRewindShot runs a lag-compensated host and 8 clients
// over 100 ms round trips, every client firing every frame; ns/shot is the
// host's time per rewound shot (the sight's lookup and the hit test
// against 128 blended entities), timed inside its simulate (the frame's
// shots together, one clock reading's share each), and rewinds/shot
// the share of shots that found a sight (1 once the clients draw).
func BenchmarkAuthorityRewindShot(b *testing.B) {
	clock := local.NewClock(authEpoch)
	nw, err := local.NewNetwork(local.Config{Seed: 9, Now: clock.Now, Link: local.Link{Latency: 50 * time.Millisecond}, QueueLen: 1024})
	if err != nil {
		b.Fatal(err)
	}
	seed := uint64(0)
	net := rollnet.NetConfig{Now: clock.Now, Tuning: rollnet.NetTuning{Rand: func() uint64 { seed++; return seed * 0x9e3779b97f4a7c15 }}}
	hep, err := nw.Endpoint("host")
	if err != nil {
		b.Fatal(err)
	}
	var run rewindRun
	host, err := authority.NewHostLagComp(authority.HostConfig[uint16]{Players: authClients, Net: net}, hep,
		func(w *gallery, in []uint16, f rollnet.Frame, seen *authority.Sights[gallery]) {
			if run.measure {
				simGallery(w, in, f, seen, &run.spent, &run.shots)
			} else {
				simGallery(w, in, f, seen, nil, nil)
			}
		})
	if err != nil {
		b.Fatal(err)
	}
	for i := range host.State().A.E {
		host.State().A.E[i] = entity{X: int32(i * 100), Y: int32(i * 7), VX: int32(i%5 - 2), VY: int32(i%3 - 1)}
	}
	clients := make([]*authority.Client[gallery, uint16], authClients)
	for i := range clients {
		ep, err := nw.Endpoint(fmt.Sprint("c", i))
		if err != nil {
			b.Fatal(err)
		}
		if clients[i], err = authority.NewClientLagComp(authority.ClientConfig{Host: "host", Players: authClients, Net: net}, ep,
			func(w *gallery, in []uint16, f rollnet.Frame, seen *authority.Sights[gallery]) {
				simGallery(w, in, f, seen, nil, nil)
			}); err != nil {
			b.Fatal(err)
		}
	}
	run.shoot(b, clock, host.AdvanceFrame, func(i int, in uint16) error {
		_ = clients[i].AddLocalInput(0, in)
		_, err := clients[i].Update(time.Second / 60)
		return err
	}, func() uint64 { return host.Stats().Rewinds })
}

// rewindRun is the rewind benchmarks' run: the host's simulate times its
// shots into spent and shots while measure is set.
type rewindRun struct {
	measure bool
	spent   time.Duration
	shots   int
}

// shoot plays the rewind benchmarks' ticks: each advances clock a 60th of
// a second, steps the host, and steps every client, client i firing and
// steering as i+1. After 240 ticks (the clients join, settle and draw),
// b.Loop's ticks are measured; it reports the host's time per shot
// (ns/shot) and its rewinds per shot (the host's counter, rewinds).
func (r *rewindRun) shoot(b *testing.B, clock *local.Clock, host func() error, client func(i int, in uint16) error, rewinds func() uint64) {
	tick := func() {
		clock.Advance(time.Second / 60)
		if err := host(); err != nil {
			b.Fatal(err)
		}
		for i := range authClients {
			if err := client(i, shotFire|uint16(i+1)&0x0303); err != nil {
				b.Fatal(err)
			}
		}
	}
	for range 240 { // join, settle, draw
		tick()
	}
	before := rewinds()
	r.measure = true
	b.ReportAllocs()
	for b.Loop() {
		tick()
	}
	if r.shots == 0 {
		b.Fatal("no shot")
	}
	b.ReportMetric(float64(r.spent.Nanoseconds())/float64(r.shots), "ns/shot")
	b.ReportMetric(float64(rewinds()-before)/float64(r.shots), "rewinds/shot")
}

// BenchmarkAuthorityRewindShotBaselineSimulate is one simulate step of the
// same world with nobody firing: what the host's frame costs at the least.
func BenchmarkAuthorityRewindShotBaselineSimulate(b *testing.B) {
	var w gallery
	for i := range w.A.E {
		w.A.E[i] = entity{X: int32(i * 100), Y: int32(i * 7), VX: int32(i%5 - 2), VY: int32(i%3 - 1)}
	}
	in := make([]uint16, authClients)
	for i := range in {
		in[i] = uint16(i+1) & 0x0303
	}
	var seen authority.Sights[gallery]
	b.ReportAllocs()
	f := 0
	for b.Loop() {
		f++
		simGallery(&w, in, rollnet.Frame(f), &seen, nil, nil)
	}
}
