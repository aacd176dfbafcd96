package authority

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/transport/local"
)

// gallery is the lag-compensation tests' game: a target moving at constant
// speed along X, and each player's shots and hits. A shot (an input with
// the fire bit) aims at an X; it hits when the target is within radius of
// it, judged where the shooter saw the target (with lag compensation) or
// at the present.
type gallery struct {
	X           int32
	Shots, Hits [2]int32
}

const (
	fire   = uint32(1) << 31
	speed  = 4 // the target's travel a frame
	radius = 2 // half a frame's travel: a shot must be judged where it was seen
)

func simGallery(lagcomp bool) func(s *gallery, in []uint32, f rollnet.Frame, seen *Sights[gallery]) {
	return func(s *gallery, in []uint32, f rollnet.Frame, seen *Sights[gallery]) {
		for p, v := range in {
			if v&fire == 0 {
				continue
			}
			tx := s.X
			if sg, ok := seen.Of(p); ok && lagcomp {
				tx = sg.Lerp(sg.From.X, sg.To.X)
			}
			s.Shots[p]++
			if d := int32(v&^fire) - tx; d >= -radius && d <= radius {
				s.Hits[p]++
			}
		}
		s.X += speed
	}
}

// shootout is a host and one shooting client over link, on a fake clock.
type shootout struct {
	t     *testing.T
	clock *local.Clock
	h     *Host[gallery, uint32]
	c     *Client[gallery, uint32]
	// fired counts the shots the client made while it saw the target
	// (every one aimed where it saw it: hits as the shooter saw them).
	fired int32
	// cheat, when set, moves the sight the client stamps after each
	// Update (a client lying about what it drew).
	cheat func(rt float64, tick int) float64
	// quiet is how long before the end the bot stops firing, so every
	// shot it counts reached the host.
	quiet time.Duration
	// noise, when set, moves the bot's aim off where it sees the target
	// (a shot the shooter sees miss as well as hit).
	noise func(tick int) int32
	// back is the furthest a sight the host's simulate got reached behind
	// the frame, in 256ths of a frame.
	back int64
}

func newShootout(t *testing.T, seed uint64, link local.Link, lagcomp bool, hc HostConfig[uint32]) *shootout {
	return newShootoutOf(t, seed, link, lagcomp, lagcomp, hc)
}

// newShootoutOf is newShootout with the client's simulate judging its
// shots with (clientLag) or without lag compensation apart from the host's.
func newShootoutOf(t *testing.T, seed uint64, link local.Link, lagcomp, clientLag bool, hc HostConfig[uint32]) *shootout {
	clock, n := testkit.NewNet(t, local.Config{Seed: seed, Link: link})
	hep, err := n.Endpoint("host")
	require.NoError(t, err)
	cep, err := n.Endpoint("a")
	require.NoError(t, err)
	hc.Players = 1
	hc.Net.Now = clock.Now
	r := seed
	rnd := func() uint64 { r = r*6364136223846793005 + 1442695040888963407; return r }
	hc.Net.Tuning.Rand = rnd
	s := &shootout{t: t, clock: clock, quiet: time.Second}
	sim := simGallery(lagcomp)
	h, err := NewHostLagComp(hc, hep, func(st *gallery, in []uint32, f rollnet.Frame, seen *Sights[gallery]) {
		if sg, ok := seen.Of(0); ok && in[0]&fire != 0 {
			s.back = max(s.back, int64(f)*256-sg.T)
		}
		sim(st, in, f, seen)
	})
	require.NoError(t, err)
	h.State().X = 1000
	cfg := ClientConfig{Host: "host", Players: 1}
	cfg.Net.Now, cfg.Net.Tuning.Rand = clock.Now, rnd
	c, err := NewClientLagComp(cfg, cep, simGallery(clientLag))
	require.NoError(t, err)
	s.h, s.c = h, c
	return s
}

// run plays d of fake time: the host ticks at 60 Hz, the client is drawn
// at 60 Hz (Update), and its bot fires every tenth drawn frame at where
// it sees the target.
func (s *shootout) run(d time.Duration) {
	hnext, cnext := s.clock.Now(), s.clock.Now().Add(time.Millisecond)
	end := s.clock.Now().Add(d)
	ticks := 0
	for s.clock.Now().Before(end) {
		if !hnext.After(cnext) {
			s.clock.Set(hnext)
			require.NoError(s.t, s.h.AdvanceFrame())
			hnext = hnext.Add(tick)
			continue
		}
		s.clock.Set(cnext)
		cnext = cnext.Add(tick)
		ticks++
		var in uint32
		sg, saw := s.c.Sight()
		shoot := saw && ticks%10 == 0 && s.c.Synchronized() && end.Sub(s.clock.Now()) > s.quiet
		if shoot {
			aim := sg.Lerp(sg.From.X, sg.To.X)
			if s.noise != nil {
				aim += s.noise(ticks)
			}
			in = fire | uint32(aim)
		}
		if s.c.Synchronized() {
			require.NoError(s.t, s.c.AddLocalInput(0, in))
		}
		n, err := s.c.Update(tick)
		require.NoError(s.t, err)
		if shoot && (s.noise == nil || s.noise(ticks) >= -radius && s.noise(ticks) <= radius) {
			s.fired += int32(n) // each step this Update ran fired, at the same sight
		}
		if s.cheat != nil {
			if rt, ok := s.c.RenderTime(); ok {
				s.c.DrawnAt(s.cheat(rt, ticks))
			}
		}
	}
}

// The figure: a bot aiming where it sees a target moving at
// constant speed, over 100 ± 20 ms round trip with 2% loss at 60 Hz. The
// host confirms at least 95% of the hits the shooter saw land with lag
// compensation; without it (the host judges the present), nearly none.
func TestLagCompHitRate(t *testing.T) {
	link := local.Link{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}
	rate := func(lagcomp bool, seed uint64, bound time.Duration) (float64, *shootout) {
		s := newShootout(t, seed, link, lagcomp, HostConfig[uint32]{MaxRewind: bound})
		s.run(20 * time.Second)
		return float64(s.h.State().Hits[0]) / float64(s.fired), s
	}
	for seed := uint64(1); seed <= 3; seed++ {
		with, s := rate(true, seed, 0)
		without, _ := rate(false, seed, 0)
		narrow, _ := rate(true, seed, 200*time.Millisecond)
		st := s.h.Clients(nil)[0]
		t.Logf("seed %d: host-confirmed / shooter-seen hits: %.1f%% with lag compensation, %.1f%% without, %.1f%% with a 200 ms bound (%d shots seen; host: %d shots, %d rewinds, sights too old %d, too new %d, jumps %d; client mismatches %d)",
			seed, 100*with, 100*without, 100*narrow, s.fired, s.h.State().Shots[0], s.h.Stats().Rewinds, st.SightsTooOld, st.SightsTooNew, st.SightJumps, s.c.Stats().Mismatches)
		require.Greater(t, s.fired, int32(100))
		require.GreaterOrEqual(t, with, 0.95, "seed %d", seed)
		require.Less(t, without, 0.5, "seed %d: without lag compensation the host judges the present", seed)
	}
	// A host that rolls back for late inputs re-simulates their frames
	// with the sights they carried.
	s := newShootout(t, 5, link, true, HostConfig[uint32]{LateInput: LateRollback})
	s.run(20 * time.Second)
	t.Logf("LateRollback: %d of %d seen hits confirmed (%d frames rolled back for)", s.h.State().Hits[0], s.fired, s.h.Clients(nil)[0].LateRolledBack)
	require.GreaterOrEqual(t, float64(s.h.State().Hits[0])/float64(s.fired), 0.95)
}

// What a client predicts for a shot is what the host decides whenever the
// client saw the host's world and the bound did not move its sight: the
// client judges its own players' shots against the states it drew (its
// sights, exactly as the host reads them), so its prediction of every
// verdict, hit or miss, matches the host's state (no mismatch) over a
// lossy, jittery link. The same client judging at its present instead
// (what it predicts without lag compensation) is corrected on most shots.
func TestLagCompClientAgrees(t *testing.T) {
	link := local.Link{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}
	noise := func(tick int) int32 { return int32(tick/10%9) - 4 } // -4..4: a third of the shots miss
	for seed := uint64(1); seed <= 3; seed++ {
		s := newShootout(t, seed, link, true, HostConfig[uint32]{MaxRewind: time.Second})
		s.noise = noise
		s.run(20 * time.Second)
		st := s.h.State()
		t.Logf("seed %d: %d shots, %d hits; client matches %d, mismatches %d", seed, st.Shots[0], st.Hits[0], s.c.Stats().Matches, s.c.Stats().Mismatches)
		require.Zero(t, s.h.Clients(nil)[0].SightsTooOld)
		require.Greater(t, st.Hits[0], int32(50))
		require.Less(t, st.Hits[0], st.Shots[0]-int32(20), "misses too")
		require.Zero(t, s.c.Stats().Mismatches, "seed %d: the client predicted every verdict as the host judged it", seed)
		require.Equal(t, s.fired, st.Hits[0], "seed %d: every hit the shooter saw, and only those, confirmed", seed)
	}
	// Broken on purpose: the client judges at its present, the host where
	// it saw.
	s := newShootoutOf(t, 1, link, true, false, HostConfig[uint32]{MaxRewind: time.Second})
	s.noise = noise
	s.run(20 * time.Second)
	t.Logf("judged at the present on the client: mismatches %d", s.c.Stats().Mismatches)
	require.Greater(t, s.c.Stats().Mismatches, uint64(30))
}

// Cheating bounds. A client claiming an older view than MaxRewind gets no
// rewind past it (counted: SightsTooOld), so a peeker's advantage is at
// most the bound; one whose view jumps about shot to shot is counted
// (SightJumps); an honest client on the same link is counted for neither
// once its timeline settled.
func TestLagCompCheats(t *testing.T) {
	link := local.Link{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}
	const bound = 300 * time.Millisecond
	boundFrames := int64(bound / tick)

	// Always 12 frames further back than drawn (about 27 behind the frame
	// acted at): no rewind past the bound,
	// and every shot judged there misses what it aimed at.
	s := newShootout(t, 1, link, true, HostConfig[uint32]{MaxRewind: bound})
	s.cheat = func(rt float64, _ int) float64 { return rt - 12 }
	s.run(20 * time.Second)
	st := s.h.Clients(nil)[0]
	t.Logf("old views: %d shots, %d hits, sights too old %d, furthest rewind %.2f frames (bound %d)", s.h.State().Shots[0], s.h.State().Hits[0], st.SightsTooOld, float64(s.back)/256, boundFrames)
	require.Greater(t, st.SightsTooOld, uint64(1000))
	require.LessOrEqual(t, s.back, boundFrames*256, "no rewind past the bound")
	require.Equal(t, boundFrames*256, s.back)
	require.Less(t, s.h.State().Hits[0], s.h.State().Shots[0]/10)

	// A view that jumps 5 frames back and forth, draw to draw.
	s = newShootout(t, 2, link, true, HostConfig[uint32]{MaxRewind: bound})
	s.cheat = func(rt float64, tick int) float64 { return rt - float64(5*(tick%2)) }
	s.run(10 * time.Second)
	st = s.h.Clients(nil)[0]
	t.Logf("jumping views: sight jumps %d", st.SightJumps)
	require.Greater(t, st.SightJumps, uint64(400))

	// Honest, on the same link: no jump, nothing too old past the start.
	s = newShootout(t, 2, link, true, HostConfig[uint32]{MaxRewind: bound})
	s.run(10 * time.Second)
	st = s.h.Clients(nil)[0]
	require.Zero(t, st.SightJumps)
	require.Zero(t, st.SightsTooNew)
}

// A sight naming a state never sent to its client, or one not before the
// frame it acts at, is moved down to the newest the client may have drawn
// and counted.
func TestLagCompTooNew(t *testing.T) {
	s := newShootout(t, 1, local.Link{Latency: 10 * time.Millisecond}, true, HostConfig[uint32]{})
	s.run(2 * time.Second)
	h := s.h
	c := h.clients[0]
	sent := c.sentUpTo
	require.Greater(t, sent, rollnet.Frame(60))
	g := sent + 5
	// T at sent+1.5 between sent+1 and sent+2: never sent.
	cl := h.heardSight(c, sightOfClaim(claim{t: int64(sent+1)*256 + 128, from: sent + 1, to: sent + 2}, g), g)
	require.Equal(t, claim{t: int64(sent) * 256, from: sent, to: sent, at: g}, cl)
	require.Equal(t, uint64(1), c.stats.SightsTooNew)
	// A state sent, but not before the frame acted at.
	g = sent - 3
	cl = h.heardSight(c, sightOfClaim(claim{t: int64(g) * 256, from: g, to: g}, g), g)
	require.Equal(t, g-1, cl.to)
	require.Equal(t, uint64(2), c.stats.SightsTooNew)
	// One within: untouched.
	cl = h.heardSight(c, sightOfClaim(claim{t: int64(sent-9)*256 + 10, from: sent - 9, to: sent - 8}, sent), sent)
	require.Equal(t, claim{t: int64(sent-9)*256 + 10, from: sent - 9, to: sent - 8, at: sent}, cl)
	require.Equal(t, uint64(2), c.stats.SightsTooNew)
}

// A lag-compensated host and client allocate nothing at steady state:
// sights stamped, coded, parsed, validated, and resolved shot by shot.
func TestLagCompAllocatesNothing(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	link := local.Link{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}
	s := newShootout(t, 4, link, true, HostConfig[uint32]{})
	s.quiet = 0
	s.run(5 * time.Second)
	shots := s.h.State().Shots[0]
	rewinds := s.h.Stats().Rewinds
	allocs.RequireZero(t, 1, func() { s.run(5 * time.Second) })
	require.Greater(t, s.h.State().Shots[0], shots+20)
	require.Greater(t, s.h.Stats().Rewinds, rewinds+20)
}
