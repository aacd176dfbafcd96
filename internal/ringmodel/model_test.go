package ringmodel

import (
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

var errDepth = errors.New("test: depth out of range")

// slotRing is a small correct ring over bytes, with a switch to plant one
// bug in it, so that Check is itself shown to catch each kind of bug.
type slotRing struct {
	live  []byte
	slots [][]byte
	head  int
	depth int
	bug   string
}

func newSlotRing(capacity, size int, bug string) *slotRing {
	r := &slotRing{live: make([]byte, size), slots: make([][]byte, capacity), head: capacity - 1, bug: bug}
	for i := range r.slots {
		r.slots[i] = make([]byte, size)
	}
	return r
}

func (r *slotRing) at(n int) []byte {
	c := len(r.slots)
	return r.slots[((r.head-n)%c+c)%c]
}

func (r *slotRing) Live() []byte  { return r.live }
func (r *slotRing) Depth() int    { return r.depth }
func (r *slotRing) Capacity() int { return len(r.slots) }
func (r *slotRing) Reset() {
	if r.bug != "reset" {
		r.depth = 0
	}
}

func (r *slotRing) Commit() {
	r.head = (r.head + 1) % len(r.slots)
	copy(r.slots[r.head], r.live)
	if r.depth < len(r.slots) || r.bug == "depth" {
		r.depth++
	}
}

func (r *slotRing) Rollback(n int) error {
	if n < 0 || n >= r.depth {
		return errDepth
	}
	if r.bug != "rollback" {
		c := len(r.slots)
		r.head = ((r.head-n)%c + c) % c
		r.depth -= n
	}
	copy(r.live, r.at(0))
	return nil
}

func (r *slotRing) Peek(n int) ([]byte, error) {
	if n < 0 || n >= r.depth {
		if r.bug == "peekerr" {
			return nil, nil
		}
		return nil, errDepth
	}
	if r.bug == "peek" && n > 0 {
		n--
	}
	return r.at(n), nil
}

func (r *slotRing) Checksum() uint32 {
	if r.bug == "checksum" {
		return crc32.ChecksumIEEE(r.live)
	}
	return checksum(r.live)
}

func (r *slotRing) ChecksumAt(n int) (uint32, error) {
	if n < 0 || n >= r.depth {
		return 0, errDepth
	}
	return checksum(r.at(n)), nil
}

func TestCheckPassesCorrectRing(t *testing.T) {
	for _, capacity := range []int{1, 2, 3, 8, 64} {
		rng := rand.New(rand.NewPCG(uint64(capacity), 1))
		r := newSlotRing(capacity, 5, "")
		require.NoError(t, Check(r, rng, Config{Capacity: capacity, Ops: 20_000, ErrDepth: errDepth}), "capacity %d", capacity)
	}
}

// TestCheckCatchesBugs plants one bug at a time and expects Check to report
// it: the model test must be able to fail.
func TestCheckCatchesBugs(t *testing.T) {
	for _, bug := range []string{"reset", "depth", "rollback", "peek", "peekerr", "checksum"} {
		t.Run(bug, func(t *testing.T) {
			for _, capacity := range []int{2, 8} {
				rng := rand.New(rand.NewPCG(uint64(capacity), 2))
				r := newSlotRing(capacity, 5, bug)
				err := Check(r, rng, Config{Capacity: capacity, Ops: 20_000, ErrDepth: errDepth})
				require.ErrorIs(t, err, ErrMismatch, "capacity %d", capacity)
				t.Log(err)
			}
		})
	}
}

func TestCheckErrDepth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 3))
	other := errors.New("another error")
	err := Check(newSlotRing(4, 3, ""), rng, Config{Capacity: 4, Ops: 1000, ErrDepth: other})
	require.ErrorIs(t, err, ErrMismatch, "an out-of-range call's error must be ErrDepth")
	// nil ErrDepth accepts any error.
	require.NoError(t, Check(newSlotRing(4, 3, ""), rng, Config{Capacity: 4, Ops: 1000}))
}

func TestCheckConfig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 4))
	for _, cfg := range []Config{{}, {Capacity: 1, Ops: -1}, {Capacity: 1, SweepEvery: -1}} {
		require.ErrorIs(t, Check(newSlotRing(1, 1, ""), rng, cfg), ErrConfig, "%+v", cfg)
	}
	require.ErrorIs(t, Check(newSlotRing(2, 1, ""), rng, Config{Capacity: 4}), ErrMismatch, "capacity differs")
	require.ErrorIs(t, Check(newSlotRing(2, 0, ""), rng, Config{Capacity: 2}), ErrMismatch, "empty state")
}

// typedState and typedRing exercise Typed without the rollback package.
type typedState [4]byte

type typedRing struct {
	*slotRing
	nilErr bool // Peek returns a pointer with its error
}

func (r typedRing) Live() *typedState { return (*typedState)(r.slotRing.Live()) }
func (r typedRing) Peek(n int) (*typedState, error) {
	b, err := r.slotRing.Peek(n)
	if err != nil {
		if r.nilErr {
			return &typedState{}, err
		}
		return nil, err
	}
	return (*typedState)(b), nil
}

func bytesOf(p *typedState) []byte { return p[:] }

func TestTyped(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 5))
	ring := Typed[typedState](typedRing{slotRing: newSlotRing(8, 4, "")}, bytesOf)
	require.NoError(t, Check(ring, rng, Config{Capacity: 8, Ops: 5000, ErrDepth: errDepth}))

	ring = Typed[typedState](typedRing{slotRing: newSlotRing(8, 4, ""), nilErr: true}, bytesOf)
	require.ErrorIs(t, Check(ring, rng, Config{Capacity: 8, Ops: 5000, ErrDepth: errDepth}), ErrMismatch,
		"a Peek that returns a pointer with its error is a mismatch")
}
