package pacing_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/pacing"
	"github.com/rollnet/rollnet/playout"
)

// hullWorld is a small deterministic host world: a hull flying at constant
// speed that turns now and then, and bolts flying straight. Fixed-width
// fields, so two worlds compare byte for byte with ==.
type hullWorld struct {
	Frame  int32
	_      int32
	X, Y   float64
	VX, VY float64
	Bolts  [8][4]float64 // x, y, vx, vy
}

const hullSpeed = 3.0

// step simulates one host frame; turn says whether the hull turns this
// frame (the host's own decision, from its seeded generator).
func (w *hullWorld) step(turn float64) {
	if turn != 0 {
		a := math.Atan2(w.VY, w.VX) + turn
		w.VX, w.VY = hullSpeed*math.Cos(a), hullSpeed*math.Sin(a)
	}
	w.coast()
}

// coast carries the world one frame along its velocities, as a client does
// for a tick that applies no host state: on straight flight it lands where
// the missing state had it.
func (w *hullWorld) coast() {
	w.Frame++
	w.X += w.VX
	w.Y += w.VY
	for i := range w.Bolts {
		b := &w.Bolts[i]
		b[0] += b[2]
		b[1] += b[3]
	}
}

// hostRun returns the host's world at every frame 0..n, turning at random
// frames if turns (rarely, so most coasts are on straight flight).
func hostRun(n int, seed uint64, turns bool) []hullWorld {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]hullWorld, n+1)
	w := hullWorld{VX: hullSpeed}
	for i := range w.Bolts {
		w.Bolts[i] = [4]float64{float64(i), 0, 1 + float64(i)/4, -0.5}
	}
	out[0] = w
	for f := 1; f <= n; f++ {
		turn := 0.0
		if rng.IntN(60) == 0 && turns {
			turn = rng.Float64() - 0.5
		}
		w.step(turn)
		out[f] = w
	}
	return out
}

// delivery is one copy of a host state on the wire, due at a client tick.
type delivery struct {
	due   int // the client tick whose opening it lands before
	seq   int // tie-break: the order it arrived in
	frame int32
}

// wire models the link in ticks: each state sent at its frame's tick
// arrives latency plus a uniform [0, jitter) ticks later (so reordered),
// a dup fraction of them twice, a loss fraction never, and is handed over
// when the next tick opens (rule 2). Seeded, so every run is the same.
func wire(frames int, latency, jitter, dup, loss float64, seed uint64) [][]int32 {
	rng := rand.New(rand.NewPCG(seed, 2))
	var ds []delivery
	send := func(f int) {
		at := float64(f) + latency + rng.Float64()*jitter
		ds = append(ds, delivery{due: int(math.Ceil(at)), seq: len(ds), frame: int32(f)})
	}
	for f := 1; f <= frames; f++ {
		if rng.Float64() < loss {
			continue
		}
		send(f)
		if rng.Float64() < dup {
			send(f)
		}
	}
	slices.SortStableFunc(ds, func(a, b delivery) int { return a.due - b.due })
	byTick := make([][]int32, frames+int(latency+jitter)+2)
	for _, d := range ds {
		byTick[d.due] = append(byTick[d.due], d.frame)
	}
	return byTick
}

// motion judges one tick of the drawn hull against the host's own per-tick
// motion: a stall moved less than half of it, a jump more than one and a
// half times (a real turn does not change the speed, so it is neither).
type motion struct{ stalls, jumps int }

func (m *motion) judge(prev, cur *hullWorld) {
	d := math.Hypot(cur.X-prev.X, cur.Y-prev.Y)
	switch {
	case d < 0.5*hullSpeed:
		m.stalls++
	case d > 1.5*hullSpeed:
		m.jumps++
	}
}

// TestStallsAndJumps is the seed's table: 2 ticks of latency, 3 of jitter,
// 5% duplicates, 1200 ticks, the host's hull as the client draws it each
// tick, applied on arrival against paced by the Queue, in the same run over
// the same wire.
func TestStallsAndJumps(t *testing.T) {
	const ticks = 1200
	host := hostRun(ticks+10, 7, true)
	net := wire(ticks, 2, 3, 0.05, 0, 11)

	// Applied on arrival: every state the moment it lands, newest last.
	var arrival motion
	var cur hullWorld
	started := false
	for tick := 1; tick <= ticks; tick++ {
		prev := cur
		for _, f := range net[tick] {
			cur = host[f]
		}
		if started {
			arrival.judge(&prev, &cur)
		}
		started = started || len(net[tick]) > 0
	}

	// Paced.
	q, err := pacing.NewQueue[hullWorld](playout.QueueConfig{})
	require.NoError(t, err)
	var paced motion
	var world hullWorld
	exact, applied, maxDepth, settledDepth := 0, 0, 0, 0
	started = false
	for tick := 1; tick <= ticks; tick++ {
		for _, f := range net[tick] {
			q.Push(f, &host[f])
		}
		prev := world
		out, frame, s := q.Tick()
		switch out {
		case pacing.Coast:
			if !started {
				continue
			}
			world.coast()
			require.Equal(t, frame, world.Frame)
		case pacing.Apply, pacing.Restart:
			world = *s
			applied++
			if world == host[frame] {
				exact++
			}
		}
		if started {
			paced.judge(&prev, &world)
		}
		started = true
		maxDepth = max(maxDepth, q.Len())
		if tick > 300 {
			settledDepth = max(settledDepth, q.Len())
		}
	}
	st := q.Stats()
	t.Logf("2 ticks latency, 3 jitter, 5%% duplicates, %d ticks:", ticks)
	t.Logf("%-18s %7s %7s %s", "", "stalls", "jumps", "world byte-exact on applied ticks")
	t.Logf("%-18s %7d %7d %s", "applied on arrival", arrival.stalls, arrival.jumps, "-")
	t.Logf("%-18s %7d %7d %d / %d", "paced", paced.stalls, paced.jumps, exact, applied)
	t.Logf("queue: deepest %d, deepest after tick 300 %d; %+v", maxDepth, settledDepth, st)

	require.Positive(t, arrival.stalls+arrival.jumps, "the wire must hurt on-arrival play, or the test proves nothing")
	require.Zero(t, paced.stalls)
	require.Zero(t, paced.jumps)
	require.Equal(t, applied, exact)
	require.LessOrEqual(t, settledDepth, 4)
	require.Zero(t, st.Stalls)
	require.Zero(t, st.Jumps)

	// Not one lucky wire: thirty more, none may stall, jump or coast.
	for seed := uint64(100); seed < 130; seed++ {
		host := hostRun(ticks+10, seed, true)
		net := wire(ticks, 2, 3, 0.05, 0, seed)
		q, err := pacing.NewQueue[hullWorld](playout.QueueConfig{})
		require.NoError(t, err)
		for tick := 1; tick <= ticks; tick++ {
			for _, f := range net[tick] {
				q.Push(f, &host[f])
			}
			q.Tick()
			if tick > 300 {
				require.LessOrEqual(t, q.Len(), 4, "seed %d", seed)
			}
		}
		st := q.Stats()
		require.Zero(t, st.Stalls+st.Jumps+st.Coasted, "seed %d: %+v", seed, st)
	}
}

// TestLostStateCoastedOnce: a perfect wire loses exactly one state while
// the host flies straight; the tick it was due coasts to within rounding of
// where it had the world, and the tick after is the host's world again.
func TestLostStateCoastedOnce(t *testing.T) {
	const ticks, lost = 400, 300
	host := hostRun(ticks+10, 3, false)
	net := wire(ticks, 2, 0, 0, 0, 5)
	for tick := range net {
		net[tick] = slices.DeleteFunc(net[tick], func(f int32) bool { return f == lost })
	}
	q, err := pacing.NewQueue[hullWorld](playout.QueueConfig{})
	require.NoError(t, err)
	var world hullWorld
	coastedAt, nextExact := -1.0, false
	for tick := 1; tick <= ticks; tick++ {
		for _, f := range net[tick] {
			q.Push(f, &host[f])
		}
		out, frame, s := q.Tick()
		switch out {
		case pacing.Coast:
			if !q.Started() {
				continue
			}
			world.coast()
			require.Equal(t, int32(lost), frame, "only the lost state's tick coasts")
			coastedAt = math.Hypot(world.X-host[lost].X, world.Y-host[lost].Y)
		default:
			world = *s
			if frame == lost+1 {
				nextExact = world == host[frame]
			}
		}
	}
	st := q.Stats()
	t.Logf("one state lost on a perfect wire: coasted tick %.3g units from the state it stood in for; tick after exact: %v; %+v", coastedAt, nextExact, st)
	require.Equal(t, int64(1), st.Coasted)
	require.Less(t, coastedAt, 1e-9)
	require.True(t, nextExact)
	require.Zero(t, st.Stalls+st.Jumps)
}

// TestStoppedClientRecovers: a client that stops ticking for 40 ticks while
// the wire keeps delivering holds at most Capacity states when it resumes,
// and is back within the depth 10 ticks later, without a lost timeline.
func TestStoppedClientRecovers(t *testing.T) {
	const ticks, stopAt, stopFor = 1200, 600, 40
	host := hostRun(ticks+10, 9, true)
	net := wire(ticks, 2, 3, 0.05, 0, 13)
	q, err := pacing.NewQueue[hullWorld](playout.QueueConfig{})
	require.NoError(t, err)
	depth := q.Config().Depth
	held, back := 0, -1
	for tick := 1; tick <= ticks; tick++ {
		if tick >= stopAt && tick < stopAt+stopFor {
			continue // stopped: the wire's deliveries wait in the socket
		}
		from := tick
		if tick == stopAt+stopFor {
			from = stopAt
		}
		for tk := from; tk <= tick; tk++ {
			for _, f := range net[tk] {
				require.NotEqual(t, pacing.TimelineLost, q.Push(f, &host[f]))
			}
		}
		if tick == stopAt+stopFor {
			held = q.Len()
		}
		q.Tick()
		if tick >= stopAt+stopFor && back < 0 && q.Len() <= depth {
			back = tick - (stopAt + stopFor) + 1
		}
	}
	t.Logf("stopped %d ticks: held %d on resume, back within depth %d after %d ticks; %+v", stopFor, held, depth, back, q.Stats())
	require.LessOrEqual(t, held, q.Config().Capacity)
	require.Positive(t, back)
	require.LessOrEqual(t, back, 10)
}
