package ringmodel

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
)

// Config says how long and how closely Check drives a ring.
type Config struct {
	// Capacity is the ring's capacity, which the model keeps to; Check
	// fails if the ring reports another. Required (at least 1).
	Capacity int

	// Ops is the number of random operations. Zero checks only the ring's
	// initial observables.
	Ops int

	// ErrDepth, when set, is the error every out-of-range Peek, Rollback and
	// ChecksumAt must return (tested with errors.Is); nil accepts any
	// non-nil error.
	ErrDepth error

	// SweepEvery is how often, in operations, every commit held is compared
	// (Peek and ChecksumAt of each depth), besides after each rollback and
	// reset. Zero means Capacity, which keeps the sweep's cost per operation
	// constant; 1 sweeps after every operation.
	SweepEvery int
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum is the model's CRC32-C, computed without the ring's code.
func checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// model is the reference: commits[len-1] is the newest. Dropping the oldest
// re-slices, so the backing array is compacted now and then.
type model struct {
	live    []byte
	commits [][]byte
	cap     int
}

func (m *model) commit() {
	if len(m.commits) == m.cap {
		m.commits[0] = nil
		m.commits = m.commits[1:]
		if cap(m.commits) < m.cap { // compact so append does not grow forever
			m.commits = append(make([][]byte, 0, 2*m.cap), m.commits...)
		}
	}
	m.commits = append(m.commits, bytes.Clone(m.live))
}

func (m *model) peek(n int) []byte { return m.commits[len(m.commits)-1-n] }

// alias is a view returned by Peek, with a copy of what it showed.
type alias struct {
	view, want []byte
	left       int // commits until its slot may be overwritten
}

// Check drives r, a new (empty) ring, with cfg.Ops random operations from
// rng and compares it with the model after each. It returns nil, or the
// first disagreement as an error wrapping ErrMismatch. The ring's live
// state may hold anything at the start; the model starts from it.
func Check(r Ring, rng *rand.Rand, cfg Config) error {
	if cfg.Capacity < 1 || cfg.Ops < 0 || cfg.SweepEvery < 0 {
		return fmt.Errorf("%w: capacity %d, ops %d, sweep every %d", ErrConfig, cfg.Capacity, cfg.Ops, cfg.SweepEvery)
	}
	live := r.Live()
	if len(live) == 0 {
		return fmt.Errorf("%w: empty live state", ErrMismatch)
	}
	capacity, size := cfg.Capacity, len(live)
	sweepEvery := cfg.SweepEvery
	if sweepEvery == 0 {
		sweepEvery = capacity
	}
	m := &model{live: bytes.Clone(live), cap: capacity}
	base := &live[0]
	var aliases []alias
	sweepIn := sweepEvery

	if c := r.Capacity(); c != capacity {
		return fmt.Errorf("%w: Capacity = %d; model %d", ErrMismatch, c, capacity)
	}
	if d := r.Depth(); d != 0 {
		return fmt.Errorf("%w: Depth = %d at the start; model 0", ErrMismatch, d)
	}
	// outOfRange checks the error of a call whose index was out of range.
	outOfRange := func(err error) bool {
		if cfg.ErrDepth != nil {
			return errors.Is(err, cfg.ErrDepth)
		}
		return err != nil
	}

	for op := range cfg.Ops {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%w: op %d (depth %d): %s", ErrMismatch, op, len(m.commits), fmt.Sprintf(format, args...))
		}
		sweep := false
		// Out-of-range indices: below 0, depth, just past it, and far ones.
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
		case k < 270: // edit a few bytes
			for range 1 + rng.IntN(3) {
				i, b := rng.IntN(size), byte(rng.Uint32())
				r.Live()[i] = b
				m.live[i] = b
			}
		case k < 300: // rewrite the whole live state
			for i := range size {
				b := byte(rng.Uint32())
				r.Live()[i] = b
				m.live[i] = b
			}
		case k < 620:
			r.Commit()
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
				before := bytes.Clone(r.Live())
				n := badN()
				if err := r.Rollback(n); !outOfRange(err) {
					return fail("Rollback(%d) out of range: %v", n, err)
				}
				if !bytes.Equal(before, r.Live()) {
					return fail("failed Rollback(%d) changed the live state", n)
				}
				break
			}
			n := goodN()
			if err := r.Rollback(n); err != nil {
				return fail("Rollback(%d): %v", n, err)
			}
			m.commits = m.commits[:len(m.commits)-n]
			copy(m.live, m.peek(0))
			aliases = aliases[:0] // their slots are reused sooner than counted
			sweep = true
		case k < 900: // peek, and keep the view
			if len(m.commits) == 0 || rng.IntN(10) == 0 {
				n := badN()
				if v, err := r.Peek(n); !outOfRange(err) || v != nil {
					return fail("Peek(%d) out of range: %x, %v", n, v, err)
				}
				break
			}
			n := goodN()
			v, err := r.Peek(n)
			if err != nil || !bytes.Equal(v, m.peek(n)) {
				return fail("Peek(%d) = %x, %v; model %x", n, v, err, m.peek(n))
			}
			if len(aliases) < 64 {
				aliases = append(aliases, alias{view: v, want: bytes.Clone(v), left: capacity - n})
			}
		case k < 960: // checksum of a commit
			if len(m.commits) == 0 || rng.IntN(10) == 0 {
				n := badN()
				if c, err := r.ChecksumAt(n); !outOfRange(err) || c != 0 {
					return fail("ChecksumAt(%d) out of range: %#x, %v", n, c, err)
				}
				break
			}
			n := goodN()
			if c, err := r.ChecksumAt(n); err != nil || c != checksum(m.peek(n)) {
				return fail("ChecksumAt(%d) = %#x, %v; model %#x", n, c, err, checksum(m.peek(n)))
			}
		case k < 997:
			if c := r.Checksum(); c != checksum(m.live) {
				return fail("Checksum = %#x; model %#x", c, checksum(m.live))
			}
		default:
			r.Reset()
			m.commits = m.commits[:0]
			aliases = aliases[:0]
			sweep = true
		}

		if d := r.Depth(); d != len(m.commits) {
			return fail("Depth = %d; model %d", d, len(m.commits))
		}
		if l := r.Live(); len(l) != size || &l[0] != base {
			return fail("Live moved or resized")
		}
		if !bytes.Equal(r.Live(), m.live) {
			return fail("live %x; model %x", r.Live(), m.live)
		}
		for _, a := range aliases {
			if !bytes.Equal(a.view, a.want) {
				return fail("a Peek view changed before its slot was reused: %x, was %x", a.view, a.want)
			}
		}
		if sweepIn--; sweepIn <= 0 || sweep {
			sweepIn = sweepEvery
			for n := range len(m.commits) {
				v, err := r.Peek(n)
				if err != nil || !bytes.Equal(v, m.peek(n)) {
					return fail("sweep: Peek(%d) = %x, %v; model %x", n, v, err, m.peek(n))
				}
				if c, err := r.ChecksumAt(n); err != nil || c != checksum(m.peek(n)) {
					return fail("sweep: ChecksumAt(%d) = %#x, %v; model %#x", n, c, err, checksum(m.peek(n)))
				}
			}
		}
	}
	return nil
}
