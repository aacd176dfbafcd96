package torture

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rollnet/rollnet/rollback"
)

// T0: the state ring against its model.
//
// Millions of random operations (edits, commits, rollbacks of every depth,
// peeks, checksums, resets, out-of-range calls) on Ring[T] and Bytes for
// every capacity 1, 2, 4 … 2^10, each checked against a naive model: the
// live state and a slice of copies, newest last. After every operation the
// depth, the live state and the operation's result are compared; every
// capacity-many operations (and after every rollback or reset) the whole
// ring is swept (every Peek, every ChecksumAt). Views returned by Peek are
// kept and must stay unchanged until capacity commits have passed.
//
// Default: 2^20 operations per ring form (about 2.1 million in all); raise
// with -torture.scale.

const t0OpsPerForm = 1 << 20

// t0State is a small typed state so that millions of operations stay fast
// under -race; the copy paths for large states are covered by the rollback
// package's own model test.
type t0State struct {
	Frame uint32
	Tag   uint16
	Bits  [2]uint8
	Pos   [2]int64
}

// t0Ring is the interface over both ring forms, as bytes.
type t0Ring interface {
	live() []byte
	commit()
	rollback(n int) error
	peek(n int) ([]byte, error)
	depth() int
	capacity() int
	reset()
	checksum() uint32
	checksumAt(n int) (uint32, error)
}

type t0Typed struct{ r *rollback.Ring[t0State] }

func (u t0Typed) live() []byte         { return rollback.BytesOf(u.r.Live()) }
func (u t0Typed) commit()              { u.r.Commit() }
func (u t0Typed) rollback(n int) error { return u.r.Rollback(n) }
func (u t0Typed) peek(n int) ([]byte, error) {
	p, err := u.r.Peek(n)
	if err != nil {
		if p != nil {
			return []byte{}, err // a non-nil pointer with an error: reported as a mismatch
		}
		return nil, err
	}
	return rollback.BytesOf(p), nil
}
func (u t0Typed) depth() int                       { return u.r.Depth() }
func (u t0Typed) capacity() int                    { return u.r.Capacity() }
func (u t0Typed) reset()                           { u.r.Reset() }
func (u t0Typed) checksum() uint32                 { return u.r.Checksum() }
func (u t0Typed) checksumAt(n int) (uint32, error) { return u.r.ChecksumAt(n) }

type t0Bytes struct{ r *rollback.Bytes }

func (u t0Bytes) live() []byte                     { return u.r.Live() }
func (u t0Bytes) commit()                          { u.r.Commit() }
func (u t0Bytes) rollback(n int) error             { return u.r.Rollback(n) }
func (u t0Bytes) peek(n int) ([]byte, error)       { return u.r.Peek(n) }
func (u t0Bytes) depth() int                       { return u.r.Depth() }
func (u t0Bytes) capacity() int                    { return u.r.Capacity() }
func (u t0Bytes) reset()                           { u.r.Reset() }
func (u t0Bytes) checksum() uint32                 { return u.r.Checksum() }
func (u t0Bytes) checksumAt(n int) (uint32, error) { return u.r.ChecksumAt(n) }

// t0Model is the reference: commits[len-1] is the newest. Dropping the
// oldest re-slices, so the backing array is compacted now and then.
type t0Model struct {
	live    []byte
	commits [][]byte
	cap     int
}

func (m *t0Model) commit() {
	if len(m.commits) == m.cap {
		m.commits[0] = nil
		m.commits = m.commits[1:]
		if cap(m.commits) < m.cap { // compact so append does not grow forever
			m.commits = append(make([][]byte, 0, 2*m.cap), m.commits...)
		}
	}
	m.commits = append(m.commits, bytes.Clone(m.live))
}

func (m *t0Model) peek(n int) []byte { return m.commits[len(m.commits)-1-n] }

type t0Alias struct {
	view, want []byte
	left       int // commits until its slot may be overwritten
}

// t0Run drives one ring for ops operations; it returns the first mismatch.
func t0Run(u t0Ring, capacity, ops int, rng *rand.Rand) error {
	size := len(u.live())
	m := &t0Model{live: make([]byte, size), cap: capacity}
	base := &u.live()[0]
	var aliases []t0Alias
	sweepIn := capacity

	for op := range ops {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("op %d (depth %d): %s", op, len(m.commits), fmt.Sprintf(format, args...))
		}
		sweep := false
		// Out-of-range indices: -1, depth, depth+1, and far ones.
		badN := func() int {
			switch rng.IntN(4) {
			case 0:
				return -1 - rng.IntN(3)
			case 1:
				return len(m.commits)
			case 2:
				return len(m.commits) + 1 + rng.IntN(capacity+1)
			default:
				return capacity + rng.IntN(1<<20)
			}
		}
		// In-range depth, mostly shallow as in a session, sometimes any.
		goodN := func() int {
			d := len(m.commits)
			if rng.IntN(8) == 0 {
				return rng.IntN(d)
			}
			return rng.IntN(min(d, 9))
		}

		switch k := rng.IntN(1000); {
		case k < 300: // edit
			for range 1 + rng.IntN(3) {
				i, b := rng.IntN(size), byte(rng.Uint32())
				u.live()[i] = b
				m.live[i] = b
			}
		case k < 620:
			u.commit()
			m.commit()
			kept := aliases[:0]
			for _, a := range aliases {
				if a.left--; a.left > 0 {
					kept = append(kept, a)
				}
			}
			aliases = kept
		case k < 760: // rollback
			if len(m.commits) == 0 || rng.IntN(10) == 0 {
				before := bytes.Clone(u.live())
				n := badN()
				if err := u.rollback(n); err == nil {
					return fail("Rollback(%d) out of range succeeded", n)
				}
				if !bytes.Equal(before, u.live()) {
					return fail("failed Rollback(%d) changed the live state", n)
				}
				break
			}
			n := goodN()
			if err := u.rollback(n); err != nil {
				return fail("Rollback(%d): %v", n, err)
			}
			m.commits = m.commits[:len(m.commits)-n]
			copy(m.live, m.peek(0))
			aliases = aliases[:0] // their slots are reused sooner than counted
			sweep = true
		case k < 900: // peek
			if len(m.commits) == 0 || rng.IntN(10) == 0 {
				n := badN()
				if v, err := u.peek(n); err == nil || v != nil {
					return fail("Peek(%d) out of range: %v, %v", n, v, err)
				}
				break
			}
			n := goodN()
			v, err := u.peek(n)
			if err != nil || !bytes.Equal(v, m.peek(n)) {
				return fail("Peek(%d) = %x, %v; model %x", n, v, err, m.peek(n))
			}
			if len(aliases) < 64 {
				aliases = append(aliases, t0Alias{view: v, want: bytes.Clone(v), left: capacity - n})
			}
		case k < 960: // checksum of a commit
			if len(m.commits) == 0 || rng.IntN(10) == 0 {
				n := badN()
				if c, err := u.checksumAt(n); err == nil || c != 0 {
					return fail("ChecksumAt(%d) out of range: %#x, %v", n, c, err)
				}
				break
			}
			n := goodN()
			if c, err := u.checksumAt(n); err != nil || c != rollback.Checksum(m.peek(n)) {
				return fail("ChecksumAt(%d) = %#x, %v; model %#x", n, c, err, rollback.Checksum(m.peek(n)))
			}
		case k < 997:
			if c := u.checksum(); c != rollback.Checksum(m.live) {
				return fail("Checksum = %#x; model %#x", c, rollback.Checksum(m.live))
			}
		default:
			u.reset()
			m.commits = m.commits[:0]
			aliases = aliases[:0]
			sweep = true
		}

		if d := u.depth(); d != len(m.commits) {
			return fail("Depth = %d; model %d", d, len(m.commits))
		}
		if !bytes.Equal(u.live(), m.live) {
			return fail("live %x; model %x", u.live(), m.live)
		}
		if &u.live()[0] != base {
			return fail("Live moved")
		}
		for _, a := range aliases {
			if !bytes.Equal(a.view, a.want) {
				return fail("a Peek view changed before its slot was reused: %x, was %x", a.view, a.want)
			}
		}
		if sweepIn--; sweepIn <= 0 || sweep {
			sweepIn = capacity
			for n := range len(m.commits) {
				v, err := u.peek(n)
				if err != nil || !bytes.Equal(v, m.peek(n)) {
					return fail("sweep: Peek(%d) = %x, %v; model %x", n, v, err, m.peek(n))
				}
				if c, err := u.checksumAt(n); err != nil || c != rollback.Checksum(m.peek(n)) {
					return fail("sweep: ChecksumAt(%d) = %#x, %v", n, c, err)
				}
			}
		}
	}
	return nil
}

// t0Capacities is every power of two from 1 to 2^10.
func t0Capacities() []int {
	var cs []int
	for c := 1; c <= 1<<10; c <<= 1 {
		cs = append(cs, c)
	}
	return cs
}

// t0Ops spreads total evenly over the capacities, with at least
// 4×capacity per ring so that even the largest wraps several times.
func t0Ops(total, capacity int) int {
	return max(4*capacity, total/len(t0Capacities()))
}

func TestT0RingTyped(t *testing.T) {
	t.Parallel()
	total := scaled(t0OpsPerForm)
	for _, c := range t0Capacities() {
		seed := baseSeed()*1_000_003 + uint64(c)
		r, err := rollback.New[t0State](c)
		if err != nil {
			t.Fatal(err)
		}
		if err := t0Run(t0Typed{r}, c, t0Ops(total, c), rand.New(rand.NewPCG(seed, 0x70))); err != nil {
			t.Fatalf("Ring[t0State] capacity %d, -torture.seed %d: %v", c, baseSeed(), err)
		}
	}
}

func TestT0RingBytes(t *testing.T) {
	t.Parallel()
	total := scaled(t0OpsPerForm)
	for i, c := range t0Capacities() {
		seed := baseSeed()*1_000_003 + uint64(c) + 1<<32
		rng := rand.New(rand.NewPCG(seed, 0x71))
		size := []int{1, 3, 8, 17, 64}[i%5]
		r, err := rollback.NewBytes(c, size)
		if err != nil {
			t.Fatal(err)
		}
		if err := t0Run(t0Bytes{r}, c, t0Ops(total, c), rng); err != nil {
			t.Fatalf("Bytes capacity %d size %d, -torture.seed %d: %v", c, size, baseSeed(), err)
		}
	}
}
