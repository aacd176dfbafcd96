package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
	"time"

	replica "github.com/rollnet/rollnet/authority/entity"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// BenchmarkAuthorityCubes is Glenn Fiedler's "Snapshot Compression"
// scene through the entity mode: 901 cubes on a plane, most resting, a
// player cube driving through them, pushed cubes knocking others; 60 Hz;
// 5% loss each way; 100 ms round trip, over transport/local on a fake
// clock. kbps/client counts each datagram's payload plus 28 bytes of IP
// and UDP header; beside it, in the same run, uncompressed-kbps (every
// cube's exact state, 29 bytes, every tick) and quantized-all-kbps (every
// cube's 10-byte encoding every tick, no headers). Every state the
// client applied is checked against the host's encoding of that cube at
// that tick (disagree must be 0), and stale-cubes is how many of the 901
// the client shows behind the host on an average tick (the 50 ms of
// latency included), moving-cubes how many change their encoding.

const (
	cubeCount    = 901
	cubeSize     = 10   // wire encoding: x, y, z 16 bits each, smallest-three quaternion and interacting in 32
	cubeExact    = 29   // exact state: position and orientation (7 float32) and interacting
	cubeTicks    = 2400 // 40 seconds
	cubeHistory  = 256  // ticks of host encodings kept to check the client
	cubeRate     = 60
	cubeBudget   = 24000 // bytes per second per client, headers included: 192 kbps
	cubeHalfSide = 64.0  // the plane is 128 m square
)

type cube struct {
	x, y, z, vx, vy, yaw, spin float32
	interacting                bool
}

type cubeScene struct {
	c    [cubeCount]cube
	grid *replica.Grid
	near []int32
	tick int
}

func newCubeScene() *cubeScene {
	s := &cubeScene{grid: replica.NewGrid(2, cubeCount)}
	for i := 1; i < cubeCount; i++ { // 30 x 30, 1.5 m apart, around the origin
		k := i - 1
		s.c[i] = cube{x: float32(k%30)*1.5 - 22, y: float32(k/30)*1.5 - 22, z: 0.5}
	}
	s.c[0] = cube{x: -30, y: -30, z: 0.5}
	return s
}

// step moves the player along a figure through the field, then resolves
// contacts (pushed cubes push others) and lets friction stop the rest.
func (s *cubeScene) step() {
	s.tick++
	t := float64(s.tick) / cubeRate
	p := &s.c[0]
	nx, ny := float32(26*math.Sin(t*0.21)), float32(20*math.Sin(t*0.37))
	p.vx, p.vy = (nx-p.x)*cubeRate, (ny-p.y)*cubeRate
	p.x, p.y = nx, ny
	p.yaw += 0.05
	for i := 1; i < cubeCount; i++ {
		c := &s.c[i]
		if c.vx == 0 && c.vy == 0 && c.spin == 0 {
			continue
		}
		c.x += c.vx / cubeRate
		c.y += c.vy / cubeRate
		c.yaw += c.spin / cubeRate
		const friction = 0.95
		c.vx, c.vy, c.spin = c.vx*friction, c.vy*friction, c.spin*friction
		if c.vx*c.vx+c.vy*c.vy < 0.01 && c.spin*c.spin < 0.01 {
			c.vx, c.vy, c.spin = 0, 0, 0 // at rest: its encoding stops changing
		}
	}
	s.grid.Clear()
	for i := range s.c {
		s.grid.Insert(i, s.c[i].x, s.c[i].y)
		s.c[i].interacting = false
	}
	for i := range s.c {
		a := &s.c[i]
		if i != 0 && a.vx == 0 && a.vy == 0 {
			continue // resting cubes are pushed, they do not push
		}
		s.near = s.grid.AppendNear(s.near[:0], a.x, a.y, 1)
		for _, j := range s.near {
			if int(j) == i || j == 0 {
				continue
			}
			b := &s.c[j]
			dx, dy := b.x-a.x, b.y-a.y
			d := float32(math.Sqrt(float64(dx*dx + dy*dy)))
			if d >= 1 || d == 0 {
				continue
			}
			push := (1 - d) / d
			b.x += dx * push
			b.y += dy * push
			b.vx += dx * push * cubeRate
			b.vy += dy * push * cubeRate
			b.spin += (dx - dy) * push * 20
			a.interacting, b.interacting = true, true
		}
	}
	for i := range s.c { // the plane's edges hold them
		c := &s.c[i]
		c.x = max(min(c.x, cubeHalfSide-1), -cubeHalfSide)
		c.y = max(min(c.y, cubeHalfSide-1), -cubeHalfSide)
	}
}

// encode quantizes cube i: positions to 1/512 m, the orientation (a yaw
// and a tilt while moving) as its smallest three components in 9 bits
// each, plus which one was dropped and the interacting flag.
func (s *cubeScene) encode(dst []byte, i int) {
	c := &s.c[i]
	q := func(v, lo float32) uint16 { return uint16(max(min((v-lo)*512, 65535), 0)) }
	binary.LittleEndian.PutUint16(dst[0:], q(c.x, -cubeHalfSide))
	binary.LittleEndian.PutUint16(dst[2:], q(c.y, -cubeHalfSide))
	binary.LittleEndian.PutUint16(dst[4:], q(c.z, 0))
	tilt := float64(min(c.spin*0.01, 0.3))
	h, t := float64(c.yaw)/2, tilt/2
	quat := [4]float64{math.Cos(h) * math.Cos(t), math.Sin(t) * math.Cos(h), math.Sin(t) * math.Sin(h), math.Sin(h) * math.Cos(t)}
	largest := 0
	for k := range quat {
		if math.Abs(quat[k]) > math.Abs(quat[largest]) {
			largest = k
		}
	}
	sign := 1.0
	if quat[largest] < 0 {
		sign = -1
	}
	bits := uint32(largest)
	for k := range quat {
		if k == largest {
			continue
		}
		v := (quat[k]*sign/math.Sqrt2 + 0.5) * 511 // each of the others is within ±1/√2
		bits = bits<<9 | uint32(max(min(math.Round(v), 511), 0))
	}
	bits = bits<<1 | b2u(c.interacting)
	binary.LittleEndian.PutUint32(dst[6:], bits)
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func BenchmarkAuthorityCubes(b *testing.B) {
	var kbps, disagree, stale, moving float64
	var hs replica.HostStats
	var cs replica.ClientStats
	for b.Loop() {
		kbps, disagree, stale, moving, hs, cs = runCubes(b)
	}
	b.ReportMetric(kbps, "kbps/client")
	b.ReportMetric(float64(cubeCount*cubeExact*cubeRate*8)/1000, "uncompressed-kbps")
	b.ReportMetric(float64(cubeCount*cubeSize*cubeRate*8)/1000, "quantized-all-kbps")
	b.ReportMetric(disagree, "disagree")
	b.ReportMetric(stale, "stale-cubes")
	b.ReportMetric(moving, "moving-cubes")
	b.Logf("host: %+v", hs)
	b.Logf("client: %+v", cs)
	if disagree != 0 {
		b.Fatalf("%v states the client applied differ from the host's", disagree)
	}
}

func runCubes(b *testing.B) (kbps, disagree, stale, moving float64, hs replica.HostStats, cs replica.ClientStats) {
	s := newCubeScene()
	slots := make([]replica.Slot, cubeCount)
	for range cubeCount {
		replica.Spawn(slots)
	}
	clock := local.NewClock(authEpoch)
	link := local.Link{Latency: 50 * time.Millisecond, Loss: 0.05}
	network, err := local.NewNetwork(local.Config{Seed: 5, Now: clock.Now, Link: link})
	if err != nil {
		b.Fatal(err)
	}
	hep, err := network.Endpoint("host")
	if err != nil {
		b.Fatal(err)
	}
	cep, err := network.Endpoint("client")
	if err != nil {
		b.Fatal(err)
	}
	host, err := replica.NewHost(replica.HostConfig{
		Capacity: cubeCount, Size: cubeSize, Encode: s.encode, BytesPerSecond: cubeBudget, TickRate: cubeRate,
		Interest: func(_ int, dst []int32) []int32 { // the whole scene is in view
			for i := range int32(cubeCount) {
				dst = append(dst, i)
			}
			return dst
		},
		Priority: func(_, i int) float32 { // cubes near the player, and the player, matter more
			dx, dy := s.c[i].x-s.c[0].x, s.c[i].y-s.c[0].y
			return 10 / (1 + (dx*dx+dy*dy)/16)
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	client, err := replica.NewClient(replica.ClientConfig{Capacity: cubeCount, Size: cubeSize})
	if err != nil {
		b.Fatal(err)
	}
	id := host.AddClient()
	var (
		history  = make([]byte, cubeHistory*cubeCount*cubeSize)
		seenTick [cubeCount]uint32
		out      = make([]byte, 0, transport.MaxDatagram)
		in       = make([]byte, transport.MaxDatagram)
		enc      = make([]byte, cubeSize)
		sent     int
		datagram int
		behind   int
		changed  int
		last     = make([]byte, cubeCount*cubeSize)
	)
	for tick := 1; tick <= cubeTicks; tick++ {
		clock.Advance(time.Second / cubeRate)
		for {
			n, _, err := hep.Receive(in)
			if err != nil {
				break
			}
			_ = host.Receive(id, in[:n])
		}
		s.step()
		host.Tick(slots)
		h := history[(tick%cubeHistory)*cubeCount*cubeSize:][:cubeCount*cubeSize]
		for i := range cubeCount {
			s.encode(h[i*cubeSize:], i)
		}
		for i := range cubeCount {
			if !bytes.Equal(h[i*cubeSize:][:cubeSize], last[i*cubeSize:][:cubeSize]) {
				changed++
			}
		}
		copy(last, h)
		if msg := host.Append(out[:0], id); len(msg) > 0 {
			sent += len(msg)
			datagram++
			if err := hep.Send("client", msg); err != nil {
				b.Fatal(err)
			}
		}
		for {
			n, _, err := cep.Receive(in)
			if err != nil {
				break
			}
			if err := client.Receive(in[:n]); err != nil {
				b.Fatal(err)
			}
		}
		if a := client.AppendAck(out[:0]); len(a) > 0 {
			if err := cep.Send("host", a); err != nil {
				b.Fatal(err)
			}
		}
		for i := range cubeCount {
			st, ok := client.Entity(i)
			if !ok {
				behind++
				continue
			}
			if st.Tick != seenTick[i] { // a state applied since the last tick
				seenTick[i] = st.Tick
				if tick-int(st.Tick) >= cubeHistory || !bytes.Equal(st.Data, history[(int(st.Tick)%cubeHistory*cubeCount+i)*cubeSize:][:cubeSize]) {
					disagree++
				}
			}
			s.encode(enc, i)
			if !bytes.Equal(st.Data, enc) {
				behind++
			}
		}
	}
	seconds := float64(cubeTicks) / cubeRate
	kbps = float64(sent+datagram*28) * 8 / seconds / 1000
	return kbps, disagree, float64(behind) / cubeTicks, float64(changed-cubeCount) / cubeTicks, host.Stats(id), client.Stats()
}
