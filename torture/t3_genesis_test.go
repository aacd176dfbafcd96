package torture

import (
	"math/rand/v2"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
)

// T3: frame zero and genesis. The first real frame (frame 0, or the first
// after the input delay) is mispredicted and rolled back to the genesis
// state the caller wrote before the first Step; then Reset, and the same
// again on the new match, over and over, including a Reset with a rollback
// still marked.
func TestT3GenesisAndReset(t *testing.T) {
	for i := range scaled(1000) {
		seed := baseSeed()*7_000_001 + uint64(i)
		rng := rand.New(rand.NewPCG(seed, 3))
		caps := []int{2, 4, 8, 16, 32}
		g := coreGame{Players: 2 + rng.IntN(3), Capacity: caps[rng.IntN(len(caps))]}
		g.Delay = rng.IntN(g.Capacity - 1)
		if rng.IntN(2) == 0 {
			g.MaxPred = 1 + rng.IntN(g.Window())
		}
		mp := g.Prediction()
		s, err := session.New[coreWorld](coreConfig(g), coreSim)
		if err != nil {
			t.Fatal(err)
		}
		for match := range 4 {
			t3Match(t, seed, match, g, mp, s, rng)
			if t.Failed() {
				return
			}
		}
	}
}

func t3Match(t *testing.T, seed uint64, match int, g coreGame, mp int, s *session.Session[coreWorld, uint16], rng *rand.Rand) {
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d match %d %+v: "+format, append([]any{seed, match, g}, args...)...)
	}
	// A new match: everything as after New.
	if s.Frame() != 0 || s.Stats() != (session.Stats{}) || *s.State() != (coreWorld{}) ||
		s.ConfirmedFrame() != rollnet.Frame(g.Delay-1) {
		fail("not a new match: frame %d stats %+v confirmed %d", s.Frame(), s.Stats(), s.ConfirmedFrame())
	}
	if _, err := s.ChecksumAt(rollnet.NoFrame); err == nil {
		fail("a genesis held before the first Step")
	}
	frames := g.Delay + mp + g.Capacity + 8
	script := coreScript(rng, g.Players, frames, g.Delay)
	for p := 1; p < g.Players; p++ {
		script[g.Delay][p] = uint16(1 + rng.IntN(4)) // never the predicted zero
	}
	var start coreWorld
	start.R = rollnet.NewRand(rng.Uint64())
	start.Acc[rng.IntN(8)] = rng.Uint32()
	*s.State() = start
	want := coreOracle(start, script)

	local := func() {
		if f := int(s.Frame()) + g.Delay; f < frames {
			if err := s.AddLocalInput(0, script[f][0]); err != nil {
				fail("%v", err)
			}
		}
	}
	// Run k frames past the first real one with the remote players silent.
	k := 1 + rng.IntN(mp)
	for int(s.Frame()) < g.Delay+k {
		local()
		if err := s.AdvanceFrame(); err != nil {
			fail("step %d: %v", s.Frame(), err)
		}
	}
	// Their inputs arrive, in random order, up to the next local frame.
	var late []rollnet.Frame
	for f := g.Delay; f <= int(s.Frame())+g.Delay && f < frames; f++ {
		late = append(late, rollnet.Frame(f))
	}
	rng.Shuffle(len(late), func(i, j int) { late[i], late[j] = late[j], late[i] })
	for _, f := range late {
		for p := 1; p < g.Players; p++ {
			if err := s.AddRemoteInput(p, f, script[f][p]); err != nil {
				fail("frame %d player %d: %v", f, p, err)
			}
		}
	}
	if s.Stats().Mispredictions < g.Players-1 {
		fail("first real frame not mispredicted: %+v", s.Stats())
	}
	if rng.IntN(4) == 0 {
		s.Reset() // with the rollback still marked: the next match must not see it
		return
	}
	local()
	if err := s.AdvanceFrame(); err != nil {
		fail("%v", err)
	}
	if st := s.Stats(); st.Rollbacks != 1 || st.MaxRollbackDepth != k {
		fail("want one rollback of %d frames, got %+v", k, st)
	}
	if int(s.Frame()) <= g.Capacity-1 { // genesis still held
		if sum, err := s.ChecksumAt(rollnet.NoFrame); err != nil || sum != want[0] {
			fail("genesis checksum %08x (%v), want %08x", sum, err, want[0])
		}
	}
	for int(s.Frame()) < frames {
		if f := int(s.Frame()) + g.Delay; f < frames {
			for p := 1; p < g.Players; p++ {
				if err := s.AddRemoteInput(p, rollnet.Frame(f), script[f][p]); err != nil {
					fail("%v", err)
				}
			}
		}
		local()
		if err := s.AdvanceFrame(); err != nil {
			fail("step %d: %v", s.Frame(), err)
		}
		for f := max(int(s.Frame())-g.Capacity, -1); f <= min(int(s.ConfirmedFrame()), int(s.Frame())-1); f++ {
			if sum, err := s.ChecksumAt(rollnet.Frame(f)); err != nil || sum != want[f+1] {
				fail("frame %d checksum %08x (%v), oracle %08x", f, sum, err, want[f+1])
			}
		}
	}
	s.Reset()
}
