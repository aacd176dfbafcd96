package netplay

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/authority/entity"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// gallery is the entity-mode lag-compensation tests' world: a target
// (entity 0) moving at constant speed along X, and the player's shots
// and hits. A shot is an input naming an X; it hits when the target is
// within galRadius of it, judged where the shooter saw the target (with
// lag compensation: Match.Seen) or at the host's present.
type gallery struct {
	Slots       [2]entity.Slot
	X           [2]int32
	Shots, Hits int32
	Ready       bool
}

// aimAt is a shot at an X; 0 is none.
type aimAt int32

const (
	galSpeed  = 4 // the target's travel a tick
	galRadius = 2 // half a tick's travel: a shot must be judged where it was seen
)

func galleryEntities(rewind time.Duration) EntityConfig[gallery, aimAt] {
	return EntityConfig[gallery, aimAt]{
		Capacity: 2, Size: 4, MaxRewind: rewind,
		Slots:  func(g *gallery) []entity.Slot { return g.Slots[:] },
		Encode: func(g *gallery, dst []byte, i int) { binary.LittleEndian.PutUint32(dst, uint32(g.X[i])) },
		Decode: func(g *gallery, i int, a, b []byte, alpha float32) {
			x, y := int32(binary.LittleEndian.Uint32(a)), int32(binary.LittleEndian.Uint32(b))
			g.X[i] = x + int32(alpha*float32(y-x))
		},
		Interest: func(g *gallery, _ int, dst []int32) []int32 { return append(dst, 0) },
		Own:      func(*gallery, int) int { return -1 },
		Predict:  func(*gallery, int, int, aimAt) {},
	}
}

// galleryRange is a host and one shooting client over link, on a fake
// clock.
type galleryRange struct {
	t          *testing.T
	clock      *local.Clock
	host, shot *Match[gallery, aimAt]
	// fired counts the shots the client made while it drew the target,
	// each aimed where it drew it: the hits the shooter saw.
	fired int32
	// cheat, when set, moves what the client says it drew, tick by tick
	// (a client lying about its view).
	cheat func(drawn int64, tick int) int64
	// back is the furthest behind the frame a shot was judged, in 256ths
	// of a tick.
	back int64
	tick int
}

func newGalleryRange(t *testing.T, seed uint64, link local.Link, lagcomp bool, rewind time.Duration) *galleryRange {
	clock := local.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	n, err := local.NewNetwork(local.Config{Seed: seed, Now: clock.Now, Link: link})
	require.NoError(t, err)
	g := &galleryRange{t: t, clock: clock}
	he, err := n.Endpoint("host")
	require.NoError(t, err)
	simulate := func(w *gallery, in []aimAt, f rollnet.Frame) {
		if !w.Ready {
			w.Ready = true
			k, _ := entity.Spawn(w.Slots[:])
			w.X[k.Index] = 1000
		}
		if at := int32(in[0]); at != 0 {
			x := w.X[0]
			if seen, ok := g.host.Seen(0, 0); ok && lagcomp {
				x = seen.X[0]
				g.back = max(g.back, int64(f)*256-g.host.d.(*entityHost[gallery, aimAt]).lag.sights[0])
			}
			w.Shots++
			if d := at - x; d >= -galRadius && d <= galRadius {
				w.Hits++
			}
		}
		w.X[0] += galSpeed
	}
	g.host, err = Host(Config{Transport: he, Now: clock.Now, Players: 1}, simulate, Entities(galleryEntities(rewind)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.host.Close() })
	ce, err := n.Endpoint("shooter")
	require.NoError(t, err)
	g.shot, err = Connect(Config{Transport: ce, Now: clock.Now, Players: 1, Peers: []transport.Peer{"host"}}, simulate, Entities(galleryEntities(rewind)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.shot.Close() })
	return g
}

// run plays d of fake time at 60 Hz; the client's bot fires every tenth
// tick at where it draws the target, and holds fire for the last second
// so every shot it counts reaches the host.
func (g *galleryRange) run(d time.Duration) {
	ticks := int(d / (time.Second / 60))
	var press aimAt
	for k := range ticks {
		g.tick++
		_, err := g.host.AdvanceFrame(0)
		require.NoError(g.t, err)
		st, err := g.shot.AdvanceFrame(press)
		require.NoError(g.t, err)
		if press != 0 {
			g.fired++
		}
		press = 0
		if w := g.shot.State(); st.Phase == Running && w.Slots[0].Live && g.tick%10 == 0 && k < ticks-60 {
			press = aimAt(w.X[0]) // where it draws the target
		}
		if g.cheat != nil {
			c := g.shot.d.(*entityClient[gallery, aimAt])
			if c.drawn >= 0 {
				c.drawn = g.cheat(c.drawn, g.tick)
			}
		}
		g.clock.Advance(time.Second / 60)
	}
}

// The figure on the entity mode: a bot aiming where it draws a
// target moving at constant speed, over 100 ± 20 ms round trip with 2%
// loss at 60 Hz. The host confirms at least 95% of the hits the shooter
// saw with lag compensation; without it (the host judging its present),
// nearly none; the figure with a 200 ms bound beside.
func TestEntityLagCompHitRate(t *testing.T) {
	link := local.Link{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}
	rate := func(seed uint64, lagcomp bool, bound time.Duration) (float64, *galleryRange) {
		g := newGalleryRange(t, seed, link, lagcomp, bound)
		g.run(20 * time.Second)
		return float64(g.host.State().Hits) / float64(g.fired), g
	}
	for seed := uint64(1); seed <= 3; seed++ {
		with, g := rate(seed, true, authority.DefaultMaxRewind)
		without, _ := rate(seed, false, authority.DefaultMaxRewind)
		narrow, _ := rate(seed, true, 200*time.Millisecond)
		s := g.host.Stats()
		t.Logf("seed %d: host-confirmed / shooter-seen hits: %.1f%% with lag compensation, %.1f%% without, %.1f%% with a 200 ms bound (%d shots seen; host: %d shots, %d rewinds, furthest %.2f ticks back; sights too old %d, too new %d, jumps %d)",
			seed, 100*with, 100*without, 100*narrow, g.fired, g.host.State().Shots, s.Rewinds, float64(g.back)/256, s.SightsTooOld, s.SightsTooNew, s.SightJumps)
		require.Greater(t, g.fired, int32(100))
		require.GreaterOrEqual(t, with, 0.95, "seed %d", seed)
		require.Less(t, without, 0.5, "seed %d: without lag compensation the host judges the present", seed)
		require.Zero(t, s.SightJumps, "an honest client's view does not jump")
	}
}

// Cheating bounds on the entity mode. A client claiming an older view
// than MaxRewind gets no rewind past it (SightsTooOld), so a peeker's
// advantage is at most the bound; one whose view jumps about is counted
// (SightJumps); one claiming a view newer than anything sent is moved
// down to the newest sent (SightsTooNew).
func TestEntityLagCompCheats(t *testing.T) {
	link := local.Link{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}
	bound := authority.DefaultMaxRewind
	boundTicks := int64(bound / (time.Second / 60))

	// 12 ticks further back than drawn: never rewound past the bound,
	// and the shots judged there miss what they aimed at.
	g := newGalleryRange(t, 1, link, true, bound)
	g.cheat = func(drawn int64, _ int) int64 { return drawn - 12*256 }
	g.run(20 * time.Second)
	s, w := g.host.Stats(), g.host.State()
	t.Logf("old views: %d shots, %d hits, sights too old %d, furthest rewind %.2f ticks (bound %d)", w.Shots, w.Hits, s.SightsTooOld, float64(g.back)/256, boundTicks)
	require.Greater(t, s.SightsTooOld, uint64(1000))
	require.Equal(t, boundTicks*256, g.back, "rewound to the bound, never past it")
	require.Less(t, w.Hits, w.Shots/10)

	// A view jumping 5 ticks back and forth, draw to draw.
	g = newGalleryRange(t, 2, link, true, bound)
	g.cheat = func(drawn int64, tick int) int64 { return drawn - int64(5*256*(tick%2)) }
	g.run(10 * time.Second)
	t.Logf("jumping views: sight jumps %d", g.host.Stats().SightJumps)
	require.Greater(t, g.host.Stats().SightJumps, uint64(400))

	// A view 20 ticks ahead of what it was sent: moved down to the
	// newest sent, counted.
	g = newGalleryRange(t, 3, link, true, bound)
	g.cheat = func(drawn int64, _ int) int64 { return drawn + 20*256 }
	g.run(10 * time.Second)
	s = g.host.Stats()
	t.Logf("views from the future: sights too new %d, hits %d of %d", s.SightsTooNew, g.host.State().Hits, g.fired)
	require.Greater(t, s.SightsTooNew, uint64(400))

	// Honest, on the same link: nothing counted once it started.
	g = newGalleryRange(t, 2, link, true, bound)
	g.run(10 * time.Second)
	s = g.host.Stats()
	require.Zero(t, s.SightJumps)
	require.Zero(t, s.SightsTooOld)
	require.Zero(t, s.SightsTooNew)
}

// A lag-compensated entity host and its client allocate nothing per
// tick at steady state: sights stamped, coded, parsed, bounded, and
// entities decoded as seen shot by shot.
func TestEntityLagCompAllocatesNothing(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	link := local.Link{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}
	g := newGalleryRange(t, 4, link, true, authority.DefaultMaxRewind)
	g.run(5 * time.Second)
	shots, rewinds := g.host.State().Shots, g.host.Stats().Rewinds
	require.Zero(t, testing.AllocsPerRun(1, func() { g.run(5 * time.Second) }))
	require.Greater(t, g.host.State().Shots, shots+20)
	require.Greater(t, g.host.Stats().Rewinds, rewinds+20)
}
