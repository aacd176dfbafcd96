package session

import (
	"fmt"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/window"
	"github.com/rollnet/rollnet/rollback"
)

// entities is the 128-entity simulation of the rollback benchmarks.
type entities struct {
	R   rollnet.Rand
	Pos [128][2]int32
	Vel [128][2]int32
}

// simEntities is never inlined: the session calls it through a func
// value, so the baselines must not let the compiler inline it into their
// loops and specialize it to their constant inputs.
//
//go:noinline
func simEntities(s *entities, in []uint16, _ rollnet.Frame) {
	// Branch-free, so that its cost does not depend on the inputs: the
	// session and its baseline simulate different input sequences.
	for i := range s.Pos {
		p := &s.Pos[i]
		v := &s.Vel[i]
		c := int32(in[i&1]&3) - 1
		v[0] = (v[0] + c) & 0xff
		v[1] = (v[1] - c) & 0xff
		p[0] = (p[0] + v[0] - 0x80) & 0xffff
		p[1] = (p[1] + v[1] - 0x80) & 0xffff
	}
	s.R.Uint64()
}

// stepCapacity is the ring capacity of the step benchmarks: wide enough
// to confirm inputs 1000 frames ahead, outside the timer.
const stepCapacity = 1024

// BenchmarkStep: Step alone, every input already confirmed (fed 1000
// frames at a time with the timer stopped), on the 48-byte test world.
func BenchmarkStep(b *testing.B) {
	s := newWorld(b, Config[uint16]{Players: 2, Capacity: stepCapacity})
	next := rollnet.Frame(0)
	b.ReportAllocs()
	for b.Loop() {
		if s.Frame() >= next {
			b.StopTimer()
			for f := next; f < next+1000; f++ {
				_ = s.AddRemoteInput(0, f, 1)
				_ = s.AddRemoteInput(1, f, 2)
			}
			next += 1000
			b.StartTimer()
		}
		if err := s.AdvanceFrame(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStepBaselineSimulateCommit: the bare work of a Step, simulate
// and Commit of the same state on a ring of the same capacity, with the
// same inputs.
func BenchmarkStepBaselineSimulateCommit(b *testing.B) {
	r, err := rollback.New[world](stepCapacity)
	if err != nil {
		b.Fatal(err)
	}
	sim := simWorld
	in := []uint16{1, 2}
	f := rollnet.Frame(0)
	b.ReportAllocs()
	for b.Loop() {
		sim(r.Live(), in, f)
		r.Commit()
		f++
	}
}

// BenchmarkFrame: a whole frame of a two-player game loop, both inputs
// given (AddLocalInput twice) and AdvanceFrame, on the default capacity.
func BenchmarkFrame(b *testing.B) {
	s := newWorld(b, Config[uint16]{Players: 2})
	b.ReportAllocs()
	for b.Loop() {
		_ = s.AddLocalInput(0, 1)
		_ = s.AddLocalInput(1, 2)
		if err := s.AdvanceFrame(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFrameBaselineSimulateCommit: simulate and Commit on a ring of
// the default capacity.
func BenchmarkFrameBaselineSimulateCommit(b *testing.B) {
	r, err := rollback.New[world](window.DefaultCapacity)
	if err != nil {
		b.Fatal(err)
	}
	sim := simWorld
	in := []uint16{1, 2}
	f := rollnet.Frame(0)
	b.ReportAllocs()
	for b.Loop() {
		sim(r.Live(), in, f)
		r.Commit()
		f++
	}
}

// rollbackBench drives a session so that every step rolls back exactly d
// frames: player 1's input for frame Frame()-d arrives each step and
// always differs from its prediction.
type rollbackBench struct {
	s *Session[entities, uint16]
	d int
}

func newRollbackBench(t testing.TB, d int) *rollbackBench {
	s, err := New[entities](Config[uint16]{Players: 2, Capacity: 16}, simEntities)
	if err != nil {
		t.Fatal(err)
	}
	rb := &rollbackBench{s: s, d: d}
	for range d {
		_ = s.AddLocalInput(0, 1)
		if err := s.AdvanceFrame(); err != nil {
			t.Fatal(err)
		}
	}
	return rb
}

func (rb *rollbackBench) step() {
	s := rb.s
	f := s.Frame() - rollnet.Frame(rb.d)
	_ = s.AddLocalInput(0, 1)
	_ = s.AddRemoteInput(1, f, uint16(f&1)+1) // predicted: frame f-1's, which differs
	if err := s.AdvanceFrame(); err != nil {
		panic(err)
	}
}

var depths = []int{1, 4, 8, 15}

// BenchmarkRollback: a Step that rolls back d frames and re-simulates
// them, then simulates the new frame, on the 128-entity simulation.
func BenchmarkRollback(b *testing.B) {
	for _, d := range depths {
		b.Run(fmt.Sprintf("depth=%d", d), func(b *testing.B) {
			rb := newRollbackBench(b, d)
			b.ReportAllocs()
			for b.Loop() {
				rb.step()
			}
			if got := rb.s.Stats().MaxRollbackDepth; got != d {
				b.Fatalf("rolled back %d frames, want %d", got, d)
			}
		})
	}
}

// BenchmarkRollbackBaselineRestoreResimulate: the bare work of the same
// AdvanceFrame: one restore (ring.Rollback(d)) and d+1 simulate + Commit (d
// re-simulated frames and the new one).
func BenchmarkRollbackBaselineRestoreResimulate(b *testing.B) {
	for _, d := range depths {
		b.Run(fmt.Sprintf("depth=%d", d), func(b *testing.B) {
			r, err := rollback.New[entities](16)
			if err != nil {
				b.Fatal(err)
			}
			sim := simEntities
			in := []uint16{1, 2}
			for range 16 {
				sim(r.Live(), in, 0)
				r.Commit()
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := r.Rollback(d); err != nil {
					b.Fatal(err)
				}
				for f := range d + 1 {
					sim(r.Live(), in, rollnet.Frame(f))
					r.Commit()
				}
			}
		})
	}
}

// BenchmarkSimulateCommit is one frame of the 128-entity simulation plus
// its Commit: the unit of the rollback cost.
func BenchmarkSimulateCommit(b *testing.B) {
	r, err := rollback.New[entities](16)
	if err != nil {
		b.Fatal(err)
	}
	sim := simEntities
	in := []uint16{1, 2}
	b.ReportAllocs()
	for b.Loop() {
		sim(r.Live(), in, 0)
		r.Commit()
	}
}

func BenchmarkPackUnpack(b *testing.B) {
	a := newWorld(b, Config[uint16]{Players: 2, InputDelay: 2})
	c := newWorld(b, Config[uint16]{Players: 2, InputDelay: 2})
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		_ = a.AddLocalInput(0, uint16(a.Frame()))
		pkt, _ := a.PackInputs(buf[:0], a.Frame()+2, 8, 0b01)
		_ = c.UnpackInputs(pkt)
		_ = a.AddLocalInput(1, 3)
		_ = c.AddLocalInput(1, 3)
		_ = a.AdvanceFrame()
		_ = c.AdvanceFrame()
	}
}
