package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"runtime"
	"testing"
	"time"

	replica "github.com/rollnet/rollnet/authority/entity"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// BenchmarkAuthorityBigWorld is the entity mode at scale: a world of
// 1,000 or 10,000 entities at a density that puts about 100 within each
// player's interest radius (50 m), 16 to 256 clients each steering a
// player entity and changing its input twice a second (at its own
// times), one entity in ten wandering, 60 Hz, over transport/local (30 ms
// each way, 2% loss each way) on a fake clock. Each client's budget is
// 8,000 B/s; the host asks about each client's interest every fourth
// tick (HostConfig.InterestEvery), the game moves its entities in an
// entity.Grid it never clears and names the ones it moved or turned
// (HostConfig.Changed, a list it keeps as it steps), so the host encodes
// those alone. Per sub-benchmark: B/s/client (payload plus 28 bytes of
// IP and UDP header per datagram), entities/client (the set's average
// size), cpu-ns/client-tick (the host thread's CPU time per client per
// tick: Tick with its copy of the game's list of changes, the game's
// interest queries and its Encode calls, Append, Receive, and
// transport/local's Send and Receive, with the bench's map from peer to
// client) and, beside it in the same run and
// on the same world, floor-ns/client-tick: touching the entities that
// client holds, in plain Go (for each index of its interest set, compare
// the entity's encoding with the copy the client last acknowledged, copy
// and CRC32-C checksum the changed ones; the encodings made and the set
// found outside the clock: the game's), CPU time too; x-floor is the
// first over the second. A host that tracks what each client holds
// cannot cost less than touching it (copying and checksumming the bytes
// sent alone, the floor before, is 16 ns: no host that reads the ~100
// entities a client holds comes near it).

const (
	bigRadius = 50
	bigSize   = 8
	bigBudget = 8000
	bigWarmup = 120
	bigTicks  = 300
	// bigInterestEvery: the host asks about a client's interest every
	// fourth tick, as a game with the default hysteresis (30 ticks) may;
	// an entity enters up to 3 ticks (50 ms) late.
	bigInterestEvery = 4
)

type bigWorld struct {
	slots  []replica.Slot
	x, y   []float32
	vx, vy []float32
	side   float32
	grid   *replica.Grid
	// moved lists the entities the last step moved or turned: the
	// game's change feed (HostConfig.Changed).
	moved []int32
}

func newBigWorld(n int) *bigWorld {
	side := float32(math.Sqrt(float64(n) * math.Pi * bigRadius * bigRadius / 100))
	w := &bigWorld{
		slots: make([]replica.Slot, n), x: make([]float32, n), y: make([]float32, n),
		vx: make([]float32, n), vy: make([]float32, n), side: side, grid: replica.NewGrid(bigRadius, n),
		moved: make([]int32, 0, n),
	}
	r := uint64(1)
	next := func() float32 { // xorshift, in [0, 1)
		r ^= r << 13
		r ^= r >> 7
		r ^= r << 17
		return float32(r>>40) / (1 << 24)
	}
	for i := range n {
		replica.Spawn(w.slots)
		w.x[i], w.y[i] = next()*side, next()*side
		if i%10 == 0 {
			w.vx[i], w.vy[i] = next()*2-1, next()*2-1
		}
	}
	return w
}

// step applies the players' inputs (a heading each, changed twice a
// second at a time of its own) and moves whatever moves.
func (w *bigWorld) step(tick, players int) {
	for p := range players {
		if (tick+p*7)%30 == 0 {
			a := float64((tick/30+p)%8) * math.Pi / 4
			w.vx[p], w.vy[p] = float32(3*math.Cos(a)), float32(3*math.Sin(a))
		}
	}
	w.moved = w.moved[:0]
	for i := range w.slots { // the grid moves what was inserted before
		if w.vx[i] != 0 || w.vy[i] != 0 {
			w.moved = append(w.moved, int32(i))
		}
		x, y := w.x[i]+w.vx[i]/60, w.y[i]+w.vy[i]/60
		if x < 0 || x >= w.side {
			w.vx[i] = -w.vx[i]
			x = w.x[i]
		}
		if y < 0 || y >= w.side {
			w.vy[i] = -w.vy[i]
			y = w.y[i]
		}
		w.x[i], w.y[i] = x, y
		w.grid.Insert(i, x, y)
	}
}

func (w *bigWorld) encode(dst []byte, i int) {
	binary.LittleEndian.PutUint16(dst, uint16(w.x[i]*64))
	binary.LittleEndian.PutUint16(dst[2:], uint16(w.y[i]*64))
	binary.LittleEndian.PutUint16(dst[4:], uint16(int16(w.vx[i]*256)))
	binary.LittleEndian.PutUint16(dst[6:], uint16(int16(w.vy[i]*256)))
}

type bigResult struct {
	bps, set, ns, floor float64
}

// floorSink keeps the floor's checksums from being optimised away.
var floorSink uint32

// touchFloor is the floor's pass over every client for one tick: the
// entities of each one's set (near[c]) compared with the client's copies,
// the changed ones copied and checksummed. A client's copies are kept
// compact, in the order of its set the tick before (held[c] the indices,
// acked[c] the encodings): an entity at another place in the set counts
// as changed, which only adds to the floor.
func touchFloor(enc []byte, near, held [][]int32, acked [][]byte, table *crc32.Table) (sum uint32) {
	for c, set := range near {
		h, a := held[c], acked[c]
		for k, idx := range set {
			o := int(idx) * bigSize
			cur, old := enc[o:o+bigSize], a[k*bigSize:(k+1)*bigSize]
			if k >= len(h) || h[k] != idx || !bytes.Equal(cur, old) {
				copy(old, cur)
				sum = crc32.Update(sum, table, old)
			}
		}
		held[c] = append(h[:0], set...)
	}
	return sum
}

func BenchmarkAuthorityBigWorld(b *testing.B) {
	results := map[string]bigResult{}
	for _, sz := range []struct{ entities, clients int }{{1000, 16}, {10000, 16}, {10000, 64}, {10000, 256}} {
		name := fmt.Sprintf("entities=%d/clients=%d", sz.entities, sz.clients)
		b.Run(name, func(b *testing.B) {
			var r bigResult
			for b.Loop() {
				r = runBigWorld(b, sz.entities, sz.clients)
			}
			b.ReportMetric(r.bps, "B/s/client")
			b.ReportMetric(r.set, "entities/client")
			b.ReportMetric(r.ns, "cpu-ns/client-tick")
			b.ReportMetric(r.floor, "floor-ns/client-tick")
			b.ReportMetric(r.ns/r.floor, "x-floor")
			results[name] = r
		})
	}
	ratio := func(a, c string) {
		if ra, ok := results[a]; ok {
			if rc, ok := results[c]; ok {
				b.Logf("B/s/client %s / %s: %.3f", c, a, rc.bps/ra.bps)
			}
		}
	}
	ratio("entities=10000/clients=16", "entities=10000/clients=256")
	ratio("entities=1000/clients=16", "entities=10000/clients=16")
}

func runBigWorld(b *testing.B, entities, clients int) bigResult {
	w := newBigWorld(entities)
	clock := local.NewClock(authEpoch)
	link := local.Link{Latency: 30 * time.Millisecond, Loss: 0.02}
	network, err := local.NewNetwork(local.Config{Seed: 11, Now: clock.Now, Link: link, QueueLen: 4 * clients})
	if err != nil {
		b.Fatal(err)
	}
	hep, err := network.Endpoint("host")
	if err != nil {
		b.Fatal(err)
	}
	hep.ExpectAnyone()
	host, err := replica.NewHost(replica.HostConfig{
		Capacity: entities, Size: bigSize, Encode: w.encode, BytesPerSecond: bigBudget, InterestEvery: bigInterestEvery,
		Interest: func(c int, dst []int32) []int32 { return w.grid.AppendNear(dst, w.x[c], w.y[c], bigRadius) },
		Changed:  func(dst []int32) []int32 { return append(dst, w.moved...) },
	})
	if err != nil {
		b.Fatal(err)
	}
	type seat struct {
		id   int
		peer transport.Peer
		ep   local.Endpoint
		c    *replica.Client
	}
	seats := make([]seat, clients)
	ids := map[transport.Peer]int{}
	for i := range seats {
		s := &seats[i]
		s.peer = transport.Peer(fmt.Sprint("c", i))
		if s.ep, err = network.Endpoint(string(s.peer)); err != nil {
			b.Fatal(err)
		}
		if s.c, err = replica.NewClient(replica.ClientConfig{Capacity: entities, Size: bigSize}); err != nil {
			b.Fatal(err)
		}
		s.id = host.AddClient()
		ids[s.peer] = s.id
	}
	var (
		out       = make([]byte, 0, transport.MaxDatagram)
		in        = make([]byte, transport.MaxDatagram)
		sent, dgs int
		set       int
		hostTime  int64
	)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for tick := 1; tick <= bigWarmup+bigTicks; tick++ {
		clock.Advance(time.Second / 60)
		measure := tick > bigWarmup
		w.step(tick, clients)
		start := threadCPU()
		for {
			n, from, err := hep.Receive(in)
			if err == transport.ErrNoPacket {
				break
			}
			if err == nil {
				_ = host.Receive(ids[from], in[:n])
			}
		}
		host.Tick(w.slots)
		for i := range seats {
			s := &seats[i]
			msg := host.Append(out[:0], s.id)
			if len(msg) == 0 {
				continue
			}
			if measure {
				sent += len(msg)
				dgs++
			}
			if err := hep.Send(s.peer, msg); err != nil {
				b.Fatal(err)
			}
		}
		if measure {
			hostTime += threadCPU() - start
		}
		for i := range seats {
			s := &seats[i]
			for {
				n, _, err := s.ep.Receive(in)
				if err != nil {
					break
				}
				if err := s.c.Receive(in[:n]); err != nil {
					b.Fatal(err)
				}
			}
			if a := s.c.AppendAck(out[:0]); len(a) > 0 {
				if err := s.ep.Send("host", a); err != nil {
					b.Fatal(err)
				}
			}
			if measure {
				set += s.c.Stats().Entities
			}
		}
	}
	for i := range seats {
		if st := host.Stats(seats[i].id); st.Mismatches != 0 {
			b.Fatalf("client %d: %d mismatches", i, st.Mismatches)
		}
	}
	clientTicks := float64(clients * bigTicks)
	return bigResult{
		bps:   float64(sent+28*dgs) / (bigTicks / 60.0) / float64(clients),
		set:   float64(set) / clientTicks,
		ns:    float64(hostTime) / clientTicks,
		floor: float64(floorRun(entities, clients)) / clientTicks,
	}
}

// floorRun is the floor's CPU time over the measured ticks of a run: the
// same world (its steps depend on the tick alone) stepped again, each
// tick's encodings made and each client's set found outside the clock,
// then touchFloor timed. It runs after the host's run, so neither warms
// or spoils the other's caches.
func floorRun(entities, clients int) int64 {
	w := newBigWorld(entities)
	enc := make([]byte, entities*bigSize)
	near, held, acked := make([][]int32, clients), make([][]int32, clients), make([][]byte, clients)
	for i := range acked {
		near[i], held[i], acked[i] = make([]int32, 0, 1024), make([]int32, 0, 1024), make([]byte, 1024*bigSize)
	}
	table := crc32.MakeTable(crc32.Castagnoli)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var t int64
	for tick := 1; tick <= bigWarmup+bigTicks; tick++ {
		w.step(tick, clients)
		for i := range w.slots {
			w.encode(enc[i*bigSize:], i)
		}
		for c := range near {
			near[c] = w.grid.AppendNear(near[c][:0], w.x[c], w.y[c], bigRadius)
		}
		start := threadCPU()
		floorSink += touchFloor(enc, near, held, acked, table)
		if tick > bigWarmup {
			t += threadCPU() - start
		}
	}
	return t
}
