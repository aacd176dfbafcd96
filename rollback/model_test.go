package rollback

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// modelState is the typed state of the model test: integers and bytes
// only, so any byte pattern is a valid value.
type modelState struct {
	Frame  uint32
	Pos    [3]int16
	Flags  uint16
	Health [4]uint8
	Seed   uint64
	Tail   [8]uint8
}

// bigState is at least bulkCopyMin bytes, so its ring copies with memmove
// rather than by assignment.
type bigState struct {
	Frame uint32
	_     [4]byte
	Grid  [80]uint64
	Tail  [100]uint8
	_     [4]byte
}

// underTest is what the model test drives: a Ring[T] seen through its byte
// views, or a Bytes.
type underTest interface {
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

type typedUnderTest[T any] struct{ r *Ring[T] }

func (u typedUnderTest[T]) live() []byte         { return BytesOf(u.r.Live()) }
func (u typedUnderTest[T]) commit()              { u.r.Commit() }
func (u typedUnderTest[T]) rollback(n int) error { return u.r.Rollback(n) }
func (u typedUnderTest[T]) peek(n int) ([]byte, error) {
	p, err := u.r.Peek(n)
	if err != nil {
		if p != nil {
			panic("Peek returned a pointer with an error")
		}
		return nil, err
	}
	return BytesOf(p), nil
}
func (u typedUnderTest[T]) depth() int                       { return u.r.Depth() }
func (u typedUnderTest[T]) capacity() int                    { return u.r.Capacity() }
func (u typedUnderTest[T]) reset()                           { u.r.Reset() }
func (u typedUnderTest[T]) checksum() uint32                 { return u.r.Checksum() }
func (u typedUnderTest[T]) checksumAt(n int) (uint32, error) { return u.r.ChecksumAt(n) }

type bytesUnderTest struct{ r *Bytes }

func (u bytesUnderTest) live() []byte                     { return u.r.Live() }
func (u bytesUnderTest) commit()                          { u.r.Commit() }
func (u bytesUnderTest) rollback(n int) error             { return u.r.Rollback(n) }
func (u bytesUnderTest) peek(n int) ([]byte, error)       { return u.r.Peek(n) }
func (u bytesUnderTest) depth() int                       { return u.r.Depth() }
func (u bytesUnderTest) capacity() int                    { return u.r.Capacity() }
func (u bytesUnderTest) reset()                           { u.r.Reset() }
func (u bytesUnderTest) checksum() uint32                 { return u.r.Checksum() }
func (u bytesUnderTest) checksumAt(n int) (uint32, error) { return u.r.ChecksumAt(n) }

// model is the naive reference: the live state and a slice of copies,
// newest last.
type model struct {
	live    []byte
	commits [][]byte
	cap     int
}

func (m *model) commit() {
	if len(m.commits) == m.cap {
		m.commits = m.commits[1:]
	}
	m.commits = append(m.commits, bytes.Clone(m.live))
}

func (m *model) peek(n int) []byte { return m.commits[len(m.commits)-1-n] }

// runModel drives u and the model with ops random operations and compares
// every observable after each one.
func runModel(t *testing.T, u underTest, capacity, ops int, rng *rand.Rand) {
	t.Helper()
	size := len(u.live())
	m := &model{live: make([]byte, size), cap: capacity}
	liveView := u.live()
	require.Equal(t, capacity, u.capacity())

	// aliases holds views returned by Peek with the model index they were
	// taken at, to check that a view stays valid until its slot is reused.
	type alias struct {
		view []byte
		want []byte
		age  int // commits made since it was taken, counted against capacity
	}
	var aliases []alias

	for op := range ops {
		// Bias: mostly edits and commits so the ring wraps, with rollbacks
		// often enough to exercise every depth.
		switch k := rng.IntN(100); {
		case k < 30: // edit a few bytes of the live state
			for range 1 + rng.IntN(4) {
				i := rng.IntN(size)
				b := byte(rng.Uint32())
				u.live()[i] = b
				m.live[i] = b
			}
		case k < 33: // rewrite the whole live state
			for i := range size {
				b := byte(rng.Uint32())
				u.live()[i] = b
				m.live[i] = b
			}
		case k < 63:
			u.commit()
			m.commit()
			for i := range aliases {
				aliases[i].age++
			}
		case k < 78: // rollback, sometimes out of range
			n := rng.IntN(len(m.commits)+3) - 1
			before := bytes.Clone(u.live())
			err := u.rollback(n)
			if n < 0 || n >= len(m.commits) {
				require.ErrorIs(t, err, ErrDepth, "op %d: Rollback(%d) at depth %d", op, n, len(m.commits))
				require.Equal(t, before, u.live(), "op %d: failed Rollback changed the live state", op)
				break
			}
			require.NoError(t, err, "op %d: Rollback(%d)", op, n)
			m.commits = m.commits[:len(m.commits)-n]
			copy(m.live, m.peek(0))
			// The discarded slots will be reused by the next commits
			// sooner than age counts: drop aliases conservatively.
			aliases = aliases[:0]
		case k < 88: // peek, sometimes out of range, and remember the view
			n := rng.IntN(len(m.commits)+3) - 1
			v, err := u.peek(n)
			if n < 0 || n >= len(m.commits) {
				require.ErrorIs(t, err, ErrDepth, "op %d: Peek(%d)", op, n)
				require.Nil(t, v)
				break
			}
			require.NoError(t, err)
			require.Equal(t, m.peek(n), v, "op %d: Peek(%d)", op, n)
			// It stays valid until capacity-n more commits overwrite it.
			aliases = append(aliases, alias{view: v, want: bytes.Clone(v), age: n})
		case k < 95: // checksum at a random depth
			n := rng.IntN(len(m.commits)+3) - 1
			c, err := u.checksumAt(n)
			if n < 0 || n >= len(m.commits) {
				require.ErrorIs(t, err, ErrDepth)
				require.Zero(t, c)
				break
			}
			require.NoError(t, err)
			require.Equal(t, Checksum(m.peek(n)), c)
		case k < 97:
			u.reset()
			m.commits = m.commits[:0]
			aliases = aliases[:0]
		default:
			require.Equal(t, Checksum(m.live), u.checksum())
		}

		// Every observable, after every operation.
		require.Equal(t, len(m.commits), u.depth(), "op %d: Depth", op)
		require.Equal(t, m.live, u.live(), "op %d: live state", op)
		require.Same(t, &liveView[0], &u.live()[0], "op %d: Live moved", op)
		for n := range len(m.commits) {
			v, err := u.peek(n)
			require.NoError(t, err)
			require.Equal(t, m.peek(n), v, "op %d: Peek(%d) of %d", op, n, len(m.commits))
		}
		kept := aliases[:0]
		for _, a := range aliases {
			if a.age < capacity {
				require.Equal(t, a.want, a.view, "op %d: a Peek view changed before its slot was reused", op)
				kept = append(kept, a)
			}
		}
		aliases = kept
	}
}

func TestRingMatchesModel(t *testing.T) {
	for _, capacity := range []int{1, 2, 8, 64} {
		t.Run(fmt.Sprintf("cap%d", capacity), func(t *testing.T) {
			seed := uint64(capacity)*0x9e3779b97f4a7c15 + 1
			t.Logf("seed %d", seed)
			rng := rand.New(rand.NewPCG(seed, 2))
			r, err := New[modelState](capacity)
			require.NoError(t, err)
			runModel(t, typedUnderTest[modelState]{r}, capacity, 4000, rng)
		})
		t.Run(fmt.Sprintf("big/cap%d", capacity), func(t *testing.T) {
			seed := uint64(capacity) + 77
			t.Logf("seed %d", seed)
			rng := rand.New(rand.NewPCG(seed, 4))
			r, err := New[bigState](capacity)
			require.NoError(t, err)
			require.True(t, bulk[bigState](), "bigState must take the memmove path")
			runModel(t, typedUnderTest[bigState]{r}, capacity, 1500, rng)
		})
	}
}

func TestBytesMatchesModel(t *testing.T) {
	for _, capacity := range []int{1, 2, 8, 64} {
		for _, size := range []int{1, 7, 64} {
			t.Run(fmt.Sprintf("cap%d/size%d", capacity, size), func(t *testing.T) {
				seed := uint64(capacity)<<8 | uint64(size)
				t.Logf("seed %d", seed)
				rng := rand.New(rand.NewPCG(seed, 3))
				r, err := NewBytes(capacity, size)
				require.NoError(t, err)
				require.Equal(t, size, r.Size())
				runModel(t, bytesUnderTest{r}, capacity, 3000, rng)
			})
		}
	}
}
