package main

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	replica "github.com/rollnet/rollnet/authority/entity"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// The entity mode's lag-compensation row: the host's CPU per rewound shot
// (Match.Seen of each of the 128 entities, a Decode of the encodings
// around the shooter's render time, and the hit test) beside one simulate
// step of the same world, in the same run.

// entGallery is the 128-entity arena as an entity table (entity p is
// player p's) with each player's hits.
type entGallery struct {
	Slots [128]replica.Slot
	E     [128]entity
	Hits  [authClients]int32
	Ready bool
}

func entGalleryConfig() netplay.EntityConfig[entGallery, uint16] {
	return netplay.EntityConfig[entGallery, uint16]{
		Capacity: 128, Size: 8, MaxRewind: 300 * time.Millisecond, BytesPerSecond: 1 << 20,
		Slots: func(w *entGallery) []replica.Slot { return w.Slots[:] },
		Encode: func(w *entGallery, dst []byte, i int) {
			binary.LittleEndian.PutUint32(dst, uint32(w.E[i].X))
			binary.LittleEndian.PutUint32(dst[4:], uint32(w.E[i].Y))
		},
		Decode: func(w *entGallery, i int, a, b []byte, alpha float32) {
			lerp := func(a, b []byte) int32 {
				x, y := int32(binary.LittleEndian.Uint32(a)), int32(binary.LittleEndian.Uint32(b))
				return x + int32(alpha*float32(y-x))
			}
			w.E[i].X, w.E[i].Y = lerp(a, b), lerp(a[4:], b[4:])
		},
		Interest: func(w *entGallery, _ int, dst []int32) []int32 {
			for i := range w.E {
				dst = append(dst, int32(i))
			}
			return dst
		},
		Own:     func(_ *entGallery, slot int) int { return slot },
		Predict: func(w *entGallery, _, i int, v uint16) { stepEntity(&w.E[i], v) },
	}
}

func stepEntity(e *entity, v uint16) {
	v &^= shotFire
	e.VX, e.VY = int32(int8(v)), int32(int8(v>>8))
	e.X += e.VX
	e.Y += e.VY
}

// stepGallery steps the world: the players steer their entities, and
// every entity moves (as simGallery's arena).
func stepGallery(w *entGallery, in []uint16) {
	for p, v := range in {
		v &^= shotFire
		w.E[p].VX, w.E[p].VY = int32(int8(v)), int32(int8(v>>8))
	}
	for i := range w.E {
		e := &w.E[i]
		e.X += e.VX
		e.Y += e.VY
		if e.X > 1<<20 || e.X < -1<<20 {
			e.VX = -e.VX
		}
	}
}

// BenchmarkEntityRewindShot runs an entity host with lag compensation and
// 8 clients over 100 ms round trips, every client firing every tick;
// ns/shot is the host's time per rewound shot (each of the 128 entities
// decoded where the shooter drew it, Match.Seen, and tested), timed inside
// its simulate (the tick's shots together), and rewinds/shot the entities
// found as seen per shot (128 once the clients draw).
func BenchmarkEntityRewindShot(b *testing.B) {
	clock := local.NewClock(authEpoch)
	nw, err := local.NewNetwork(local.Config{Seed: 9, Now: clock.Now, Link: local.Link{Latency: 50 * time.Millisecond}, QueueLen: 1024})
	if err != nil {
		b.Fatal(err)
	}
	hep, err := nw.Endpoint("host")
	if err != nil {
		b.Fatal(err)
	}
	var host *netplay.Match[entGallery, uint16]
	var run rewindRun
	simulate := func(w *entGallery, in []uint16, f rollnet.Frame) {
		if !w.Ready {
			w.Ready = true
			for i := range w.E {
				_, _ = replica.Spawn(w.Slots[:])
				w.E[i] = entity{X: int32(i * 100), Y: int32(i * 7), VX: int32(i%5 - 2), VY: int32(i%3 - 1)}
			}
		}
		var t0 time.Time
		if run.measure {
			t0 = time.Now()
		}
		n := 0
		for p, v := range in {
			if v&shotFire == 0 {
				continue
			}
			n++
			e := w.E[(p+1)%len(w.E)]
			for i := range w.E {
				if seen, ok := host.Seen(p, i); ok {
					dx, dy := seen.E[i].X-e.X, seen.E[i].Y-e.Y
					if dx > -shotRadius && dx < shotRadius && dy > -shotRadius && dy < shotRadius {
						w.Hits[p]++
					}
				}
			}
		}
		if run.measure && n > 0 {
			run.spent += time.Since(t0)
			run.shots += n
		}
		stepGallery(w, in)
	}
	host, err = netplay.Host(netplay.Config{Transport: hep, Now: clock.Now, Players: authClients}, simulate, netplay.Entities(entGalleryConfig()))
	if err != nil {
		b.Fatal(err)
	}
	defer host.Close()
	clients := make([]*netplay.Match[entGallery, uint16], authClients)
	for i := range clients {
		ep, err := nw.Endpoint(fmt.Sprint("c", i))
		if err != nil {
			b.Fatal(err)
		}
		if clients[i], err = netplay.Connect(netplay.Config{Transport: ep, Now: clock.Now, Players: authClients, Peers: []transport.Peer{"host"}},
			simulate, netplay.Entities(entGalleryConfig())); err != nil {
			b.Fatal(err)
		}
		defer clients[i].Close()
	}
	run.shoot(b, clock, func() error {
		_, err := host.AdvanceFrame(0)
		return err
	}, func(i int, in uint16) error {
		_, err := clients[i].AdvanceFrame(in)
		return err
	}, func() uint64 { return host.Stats().Rewinds })
}

// BenchmarkEntityRewindShotBaselineSimulate is one simulate step of the
// same world with nobody firing: the 8 players' entities moved.
func BenchmarkEntityRewindShotBaselineSimulate(b *testing.B) {
	var w entGallery
	for i := range w.E {
		w.E[i] = entity{X: int32(i * 100), Y: int32(i * 7), VX: int32(i%5 - 2), VY: int32(i%3 - 1)}
	}
	in := make([]uint16, authClients)
	for i := range in {
		in[i] = uint16(i+1) & 0x0303
	}
	b.ReportAllocs()
	for b.Loop() {
		stepGallery(&w, in)
	}
}
