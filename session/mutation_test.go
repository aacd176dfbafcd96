package session

// Tests written against the mutants gremlins left alive in the core session
// (session.go, pack.go, rand.go, input_bytes.go, synctest.go); see
// torture/MUTATION.md. Each pins a rule of the contract in doc.go at its
// exact boundary. Identifiers are prefixed "mut" to keep clear of the
// package's other tests.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/internal/inputbytes"
	"github.com/rollnet/rollnet/rollback"
	"github.com/stretchr/testify/require"
)

// mutRec remembers the inputs each frame was last simulated with (frame f
// at index f%32) and the last frame simulated.
type mutRec struct {
	In   [32][4]uint16
	Last int32
}

func simMutRec(r *mutRec, in []uint16, f rollnet.Frame) {
	copy(r.In[f%32][:], in)
	r.Last = int32(f)
}

func newMutRec(t *testing.T, cfg Config[uint16]) *Session[mutRec, uint16] {
	t.Helper()
	s, err := New[mutRec](cfg, simMutRec)
	require.NoError(t, err)
	return s
}

func TestMutationConfigRefused(t *testing.T) {
	sim := func(*uint8, []uint16, rollnet.Frame) {}
	for _, cfg := range []Config[uint16]{
		{Players: 0},
		{Players: -1},
		{Players: MaxPlayers + 1},
		{Players: 1, Capacity: -16},
		{Players: 1, Capacity: 3},
		{Players: 1, Capacity: 12},
		{Players: 1, Capacity: 1 << 21},
		{Players: 1, Capacity: 1},                // W = 0
		{Players: 1, Capacity: 2, InputDelay: 1}, // W = 0
		{Players: 1, Capacity: 4, InputDelay: -1},
		{Players: 1, Capacity: 4, InputDelay: 4, Lockstep: true},
		{Players: 1, Capacity: 4, Lockstep: true, MaxPrediction: 1},
		{Players: 1, Capacity: 4, Lockstep: true, MaxPrediction: -1},
		{Players: 1, Capacity: 4, MaxPrediction: -1},
		{Players: 1, Capacity: 4, MaxPrediction: 4},                // W = 3
		{Players: 1, Capacity: 8, InputDelay: 2, MaxPrediction: 6}, // W = 5
	} {
		s, err := New[uint8](cfg, sim)
		require.ErrorIs(t, err, rollnet.ErrConfig, "%+v", cfg)
		require.Nil(t, s)
	}
	// The messages name the bound that was broken.
	_, err := New[uint8](Config[uint16]{Players: 1, Capacity: 4, InputDelay: 4}, sim)
	require.EqualError(t, err, "rollnet: invalid config: session: InputDelay 4 not in [0, Capacity-1 = 3]")
	_, err = New[uint8](Config[uint16]{Players: 1, Capacity: 8, InputDelay: 2, MaxPrediction: 6}, sim)
	require.EqualError(t, err, "rollnet: invalid config: session: MaxPrediction 6 not in [0, Capacity-1-InputDelay = 5]")
	_, err = New[uint8](Config[uint16]{Players: 65}, sim)
	require.EqualError(t, err, "rollnet: invalid config: session: Players 65 not in [1, 64]")

	_, err = New[uint8](Config[uint16]{Players: 1}, nil)
	require.ErrorIs(t, err, rollnet.ErrConfig)
	_, err = New[uint8](Config[int]{Players: 1}, func(*uint8, []int, rollnet.Frame) {})
	require.ErrorIs(t, err, rollnet.ErrConfig)
	require.ErrorIs(t, err, rollback.ErrStateType)
	_, err = New[int](Config[uint16]{Players: 1}, func(*int, []uint16, rollnet.Frame) {}) //rollnet:ok the state type is refused on purpose
	require.ErrorIs(t, err, rollnet.ErrConfig)
	require.ErrorIs(t, err, rollback.ErrStateType)
}

func TestMutationConfigAccepted(t *testing.T) {
	sim := func(*uint8, []uint16, rollnet.Frame) {}
	for _, c := range []struct {
		cfg                       Config[uint16]
		capacity, window, maxPred int
	}{
		{Config[uint16]{Players: 1}, 16, 15, 15},
		{Config[uint16]{Players: MaxPlayers, Capacity: 2}, 2, 1, 1},
		{Config[uint16]{Players: 1, Capacity: 1, Lockstep: true}, 1, 0, 0},
		{Config[uint16]{Players: 2, Capacity: 4, InputDelay: 3, Lockstep: true}, 4, 0, 0},
		{Config[uint16]{Players: 2, Capacity: 8, InputDelay: 2}, 8, 5, 5},
		{Config[uint16]{Players: 2, Capacity: 8, InputDelay: 2, MaxPrediction: 5}, 8, 5, 5},
		{Config[uint16]{Players: 3, Capacity: 8, InputDelay: 2, MaxPrediction: 1}, 8, 5, 1},
		{Config[uint16]{Players: 3, Capacity: 16, Lockstep: true}, 16, 15, 0},
		{Config[uint16]{Players: 1, Capacity: 1 << 20, Lockstep: true}, 1 << 20, 1<<20 - 1, 0},
	} {
		s, err := New[uint8](c.cfg, sim)
		require.NoError(t, err, "%+v", c.cfg)
		require.Equal(t, c.capacity, s.ring.Capacity())
		require.Equal(t, c.window, s.window)
		require.Equal(t, c.maxPred, s.maxPred)
		require.Equal(t, c.cfg.InputDelay, s.delay)
		require.Equal(t, 2, s.inputSize())
		require.Equal(t, bits.OnesCount64(s.all), c.cfg.Players)
		require.Equal(t, uint64(1), s.all&1)
		// The input ring is the smallest power of two holding frames
		// Frame()-W-1 .. Frame()+InputDelay+MaxPrediction.
		span := c.window + c.cfg.InputDelay + c.maxPred + 2
		slots := s.mask + 1
		require.GreaterOrEqual(t, slots, span, "%+v", c.cfg)
		require.Less(t, slots/2, span, "%+v", c.cfg)
		require.Equal(t, 0, slots&(slots-1))
		require.Equal(t, rollnet.NoFrame+rollnet.Frame(c.cfg.InputDelay), s.ConfirmedFrame())
		require.Zero(t, s.frameAdvantage())
	}
}

// mutAdvance steps s to frame `to`, player 0 local and player 1's input for
// each frame arriving (as value v) when the frame is given locally.
func mutAdvance(t *testing.T, s *Session[mutRec, uint16], to rollnet.Frame, v uint16) {
	t.Helper()
	for s.Frame() < to {
		f := s.Frame() + rollnet.Frame(s.delay)
		require.NoError(t, s.AddLocalInput(0, v))
		require.NoError(t, s.AddRemoteInput(1, f, v))
		require.NoError(t, s.AdvanceFrame())
	}
}

func TestMutationAcceptWindow(t *testing.T) {
	s := newMutRec(t, Config[uint16]{Players: 2, Capacity: 8, InputDelay: 2, MaxPrediction: 3}) // W = 5
	// Frame 0: frame -1 is never accepted, even though it is inside
	// Frame()-W.
	require.ErrorIs(t, s.AddRemoteInput(1, -1, 0), ErrOutOfWindow)
	require.Zero(t, s.Stats().StaleInputs)
	for _, p := range []int{-1, 2, 64} {
		require.ErrorIs(t, s.AddRemoteInput(p, 3, 1), ErrPlayer)
		require.ErrorIs(t, s.AddLocalInput(p, 1), ErrPlayer)
	}

	mutAdvance(t, s, 10, 1)
	lo, hi := s.acceptWindow()
	require.Equal(t, rollnet.Frame(5), lo)
	require.Equal(t, rollnet.Frame(15), hi)

	// lo-1 is stale, even with a conflicting value; lo is held (a
	// different value there is a conflict, the same value nothing).
	require.NoError(t, s.AddRemoteInput(1, 4, 9))
	require.Equal(t, 1, s.Stats().StaleInputs)
	require.NoError(t, s.AddRemoteInput(1, 5, 1))
	err := s.AddRemoteInput(1, 5, 9)
	var ce *ConflictError
	require.ErrorAs(t, err, &ce)
	require.ErrorIs(t, err, ErrConflict)
	require.Equal(t, ConflictError{Frame: 5, Player: 1}, *ce)
	require.Equal(t, 1, s.Stats().Desyncs)
	require.Equal(t, 1, s.Stats().StaleInputs)

	// hi is accepted, hi+1 is not and stores nothing.
	require.NoError(t, s.AddRemoteInput(1, 15, 3))
	require.ErrorIs(t, s.AddRemoteInput(1, 16, 3), ErrOutOfWindow)
	_, ok := s.confirmedInput(1, 16)
	require.False(t, ok)
	in, ok := s.confirmedInput(1, 15)
	require.True(t, ok)
	require.Equal(t, uint16(3), in)
	require.Zero(t, s.Stats().Mispredictions)
	require.Zero(t, s.Stats().Rollbacks)
}

func TestMutationConfirmation(t *testing.T) {
	var desyncs [][2]int
	s := newMutRec(t, Config[uint16]{Players: 2, Capacity: 8, InputDelay: 2,
		OnDesync: func(f rollnet.Frame, p int) { desyncs = append(desyncs, [2]int{int(f), p}) }})
	require.Equal(t, rollnet.Frame(1), s.ConfirmedFrame())
	require.Equal(t, 0, s.frameAdvantage())
	for p := range 2 {
		require.Equal(t, rollnet.Frame(1), s.playerConfirmedFrame(p))
		for f := range rollnet.Frame(2) {
			in, ok := s.confirmedInput(p, f) // the delay frames: zero, confirmed
			require.True(t, ok)
			require.Zero(t, in)
		}
		_, ok := s.confirmedInput(p, 2)
		require.False(t, ok)
	}
	_, ok := s.confirmedInput(2, 0)
	require.False(t, ok)
	_, ok = s.confirmedInput(-1, 0)
	require.False(t, ok)
	_, ok = s.confirmedInput(0, -1)
	require.False(t, ok)

	require.NoError(t, s.AddLocalInput(0, 5)) // frame 2
	require.Equal(t, 1, s.frameAdvantage())
	require.NoError(t, s.AddLocalInput(0, 6)) // replaces
	in, _ := s.confirmedInput(0, 2)
	require.Equal(t, uint16(6), in)
	require.Equal(t, rollnet.Frame(2), s.playerConfirmedFrame(0))
	require.Equal(t, rollnet.Frame(1), s.ConfirmedFrame())

	// Out of order: frame 3 first leaves player 1 at frame 1.
	require.NoError(t, s.AddRemoteInput(1, 3, 7))
	require.Equal(t, rollnet.Frame(1), s.playerConfirmedFrame(1))
	require.Equal(t, rollnet.Frame(1), s.ConfirmedFrame())
	require.NoError(t, s.AddRemoteInput(1, 2, 8))
	require.Equal(t, rollnet.Frame(3), s.playerConfirmedFrame(1))
	require.Equal(t, rollnet.Frame(2), s.ConfirmedFrame()) // min over players
	require.Equal(t, 0, s.frameAdvantage())

	// A conflict keeps the first value and calls OnDesync.
	err := s.AddRemoteInput(1, 3, 9)
	require.ErrorIs(t, err, ErrConflict)
	require.EqualError(t, err, "session: conflicting input for a confirmed frame: frame 3 player 1")
	in, _ = s.confirmedInput(1, 3)
	require.Equal(t, uint16(7), in)
	require.Equal(t, [][2]int{{3, 1}}, desyncs)
	require.NoError(t, s.AddRemoteInput(1, 3, 7))
	require.Len(t, desyncs, 1)

	// Player 0 catches up past player 1.
	require.NoError(t, s.AdvanceFrame())
	require.NoError(t, s.AddLocalInput(0, 6)) // frame 3
	require.Equal(t, rollnet.Frame(3), s.ConfirmedFrame())
	require.NoError(t, s.AdvanceFrame())
	require.NoError(t, s.AddLocalInput(0, 6)) // frame 4
	require.Equal(t, rollnet.Frame(3), s.ConfirmedFrame())
	require.Equal(t, 1, s.frameAdvantage())
}

func TestMutationPrediction(t *testing.T) {
	type call struct {
		p    int
		last uint16
		f    rollnet.Frame
	}
	var calls []call
	s := newMutRec(t, Config[uint16]{Players: 3, Capacity: 8,
		Predict: func(p int, last uint16, f rollnet.Frame) uint16 {
			calls = append(calls, call{p, last, f})
			return last + 100
		}})
	local := func(v uint16) { require.NoError(t, s.AddLocalInput(0, v)) }

	local(1)
	require.NoError(t, s.AddRemoteInput(1, 0, 5))
	require.NoError(t, s.AddRemoteInput(2, 0, 9))
	require.NoError(t, s.AdvanceFrame()) // frame 0: all confirmed, no prediction
	require.Empty(t, calls)
	require.Equal(t, [4]uint16{1, 5, 9, 0}, s.State().In[0])

	require.NoError(t, s.AddRemoteInput(1, 3, 50)) // a later frame arrives first
	require.NoError(t, s.AddRemoteInput(2, 1, 4))
	local(1)
	require.NoError(t, s.AdvanceFrame()) // frame 1: player 1 predicted from frame 0, not frame 3
	require.Equal(t, []call{{1, 5, 1}}, calls)
	require.Equal(t, [4]uint16{1, 105, 4, 0}, s.State().In[1])
	calls = nil

	local(1)
	require.NoError(t, s.AdvanceFrame()) // frame 2: both predicted
	require.Equal(t, []call{{1, 5, 2}, {2, 4, 2}}, calls)
	require.Equal(t, [4]uint16{1, 105, 104, 0}, s.State().In[2])
	calls = nil

	local(1)
	require.NoError(t, s.AdvanceFrame()) // frame 3: player 1 confirmed (50)
	require.Equal(t, []call{{2, 4, 3}}, calls)
	require.Equal(t, [4]uint16{1, 50, 104, 0}, s.State().In[3])
	calls = nil

	// An input for the frame about to be simulated is no misprediction.
	require.NoError(t, s.AddRemoteInput(2, 4, 77))
	require.Zero(t, s.Stats().Mispredictions)
	// A correct late input is none either; wrong ones are, and the
	// earliest one is where the rollback starts, whatever the order.
	require.NoError(t, s.AddRemoteInput(1, 1, 105))
	require.Zero(t, s.Stats().Mispredictions)
	require.NoError(t, s.AddRemoteInput(2, 3, 1))
	require.NoError(t, s.AddRemoteInput(1, 2, 6))
	require.NoError(t, s.AddRemoteInput(2, 2, 2))
	require.Equal(t, 3, s.Stats().Mispredictions)
	_, err := s.ChecksumAt(1)
	require.NoError(t, err)
	_, err = s.ChecksumAt(2)
	require.ErrorIs(t, err, ErrOutOfWindow, "frame 2 awaits re-simulation")
	_, err = s.StateAt(2)
	require.ErrorIs(t, err, ErrOutOfWindow)
	st, err := s.StateAt(1)
	require.NoError(t, err)
	require.Equal(t, int32(1), st.Last)

	local(1)
	require.NoError(t, s.AdvanceFrame()) // rolls back to frame 2, re-simulates 2..3, simulates 4
	require.Equal(t, Stats{Rollbacks: 1, MaxRollbackDepth: 2, Mispredictions: 3, ResimulatedFrames: 2}, s.Stats())
	require.Equal(t, [4]uint16{1, 105, 4, 0}, s.State().In[1])
	require.Equal(t, [4]uint16{1, 6, 2, 0}, s.State().In[2])
	require.Equal(t, [4]uint16{1, 50, 1, 0}, s.State().In[3])
	require.Equal(t, [4]uint16{1, 150, 77, 0}, s.State().In[4]) // player 1: from frame 3
	require.Equal(t, int32(4), s.State().Last)
	for g := range rollnet.Frame(5) { // one commit per frame, re-simulated or not
		st, err := s.StateAt(g)
		require.NoError(t, err)
		require.Equal(t, int32(g), st.Last, "state after frame %d", g)
	}

	// A deeper rollback raises the maximum; a shallower one does not.
	local(1)
	require.NoError(t, s.AdvanceFrame()) // frame 5
	require.NoError(t, s.AddRemoteInput(2, 5, 3))
	local(1)
	require.NoError(t, s.AdvanceFrame())
	require.Equal(t, 2, s.Stats().Rollbacks)
	require.Equal(t, 2, s.Stats().MaxRollbackDepth)
	require.Equal(t, 3, s.Stats().ResimulatedFrames)
}

// TestMutationPredictionNearestConfirmed: with inputs of player 1 arriving
// early for frames 2 and 4, frame 3 is predicted from frame 2 (the nearest
// earlier confirmed frame), not from frame 0 (the end of the contiguous run).
func TestMutationPredictionNearestConfirmed(t *testing.T) {
	s := newMutRec(t, Config[uint16]{Players: 2, Capacity: 16})
	require.NoError(t, s.AddRemoteInput(1, 0, 5))
	require.NoError(t, s.AddRemoteInput(1, 2, 7))
	require.NoError(t, s.AddRemoteInput(1, 4, 9))
	for range 5 {
		require.NoError(t, s.AddLocalInput(0, 1))
		require.NoError(t, s.AdvanceFrame())
	}
	for f, want := range []uint16{5, 5, 7, 7, 9} {
		require.Equal(t, want, s.State().In[f][1], "frame %d", f)
	}
	require.Zero(t, s.Stats().Mispredictions)
}

func TestMutationPredictionLimit(t *testing.T) {
	s := newMutRec(t, Config[uint16]{Players: 2, Capacity: 8, MaxPrediction: 3})
	for range 3 {
		require.NoError(t, s.AddLocalInput(0, 1))
		require.NoError(t, s.AdvanceFrame())
	}
	require.NoError(t, s.AddLocalInput(0, 1))
	require.ErrorIs(t, s.AdvanceFrame(), ErrPredictionLimit)
	require.Equal(t, rollnet.Frame(3), s.Frame())
	require.NoError(t, s.AddRemoteInput(1, 0, 0))
	require.NoError(t, s.AdvanceFrame())
	require.ErrorIs(t, s.AdvanceFrame(), ErrPredictionLimit)

	l := newMutRec(t, Config[uint16]{Players: 2, Capacity: 4, Lockstep: true})
	require.ErrorIs(t, l.AdvanceFrame(), ErrPredictionLimit)
	require.NoError(t, l.AddLocalInput(0, 1))
	require.ErrorIs(t, l.AdvanceFrame(), ErrPredictionLimit)
	require.NoError(t, l.AddRemoteInput(1, 0, 2))
	require.NoError(t, l.AdvanceFrame())
	require.Equal(t, [4]uint16{1, 2, 0, 0}, l.State().In[0])
	require.ErrorIs(t, l.AdvanceFrame(), ErrPredictionLimit)
}

func TestMutationChecksumWindowAndReset(t *testing.T) {
	s := newMutRec(t, Config[uint16]{Players: 2, Capacity: 4})
	s.State().Last = 77 // the initial state, committed by the first AdvanceFrame
	_, err := s.ChecksumAt(-1)
	require.ErrorIs(t, err, ErrOutOfWindow)

	want := map[rollnet.Frame]mutRec{-1: *s.State()}
	for f := range rollnet.Frame(6) {
		require.NoError(t, s.AddLocalInput(0, uint16(f)))
		require.NoError(t, s.AddRemoteInput(1, f, uint16(f)+1))
		require.NoError(t, s.AdvanceFrame())
		want[f] = *s.State()
		for g := f - 4; g <= f+1; g++ {
			sum, err := s.ChecksumAt(g)
			st, err2 := s.StateAt(g)
			if g < f-3 || g > f || g < -1 {
				require.ErrorIs(t, err, ErrOutOfWindow, "frame %d at %d", g, f)
				require.ErrorIs(t, err2, ErrOutOfWindow)
				require.Nil(t, st)
				continue
			}
			w := want[g]
			require.NoError(t, err, "frame %d at %d", g, f)
			require.Equal(t, rollback.Checksum(rollback.BytesOf(&w)), sum)
			require.NoError(t, err2)
			require.Equal(t, w, *st)
		}
	}

	_, err = s.ChecksumAt(6)
	require.EqualError(t, err, "session: frame out of window: frame 6 (held: 2..5)")

	s.Reset()
	require.Equal(t, mutRec{}, *s.State())
	require.Zero(t, s.Frame())
	require.Equal(t, rollnet.NoFrame, s.ConfirmedFrame())
	require.Equal(t, Stats{}, s.Stats())
	_, ok := s.confirmedInput(0, 0)
	require.False(t, ok)
	_, err = s.ChecksumAt(-1)
	require.ErrorIs(t, err, ErrOutOfWindow)
	s.State().Last = 5
	require.NoError(t, s.AddLocalInput(0, 1))
	require.NoError(t, s.AdvanceFrame())
	g, err := s.StateAt(-1)
	require.NoError(t, err)
	require.Equal(t, int32(5), g.Last, "genesis after Reset")
}

// mutInput has bools at offsets 1, 2 and 4.
type mutInput struct {
	A uint8
	B bool
	C [2]struct {
		X bool
		Y uint8
	}
	D uint16
}

func TestMutationInputCodec(t *testing.T) {
	require.Equal(t, []int{1, 2, 4}, inputbytes.BoolOffsets(reflect.TypeFor[mutInput](), 0, nil))
	require.Equal(t, []int{11, 12, 14}, inputbytes.BoolOffsets(reflect.TypeFor[mutInput](), 10, nil))
	require.Equal(t, []int{0, 0, 1, 2}, inputbytes.BoolOffsets(reflect.TypeFor[[3]bool](), 0, []int{0}))
	c, err := newInputCodec[mutInput]()
	require.NoError(t, err)
	require.Equal(t, 8, c.size)

	in := mutInput{A: 200, B: true, D: 0x1234}
	in.C[1].X = true
	b := c.append([]byte{9}, &in)
	require.Equal(t, []byte{9, 200, 1, 0, 0, 1, 0, 0x34, 0x12}, b)
	var out mutInput
	require.NoError(t, c.decode(b[1:], &out))
	require.Equal(t, in, out)
	for _, o := range []int{1, 2, 4} {
		bad := append([]byte(nil), b[1:]...)
		bad[o] = 2
		out = mutInput{A: 1}
		require.ErrorIs(t, c.decode(bad, &out), ErrMalformed)
		require.Equal(t, mutInput{A: 1}, out)
	}
	// Non-bool bytes take any value; extra bytes are ignored.
	require.NoError(t, c.decode([]byte{255, 1, 1, 255, 1, 255, 255, 255, 7}, &out))
	require.Equal(t, uint16(0xffff), out.D)

	_, err = newInputCodec[*int]()
	require.ErrorIs(t, err, rollnet.ErrConfig)
}

// mutPackSession is a 3-player session with players 0 and 2 given locally
// for frames 0..5 (values 100+f and 200+f) and player 1 for frames 3..5
// (values 10+f).
func mutPackSession(t *testing.T) *Session[mutRec, uint16] {
	s := newMutRec(t, Config[uint16]{Players: 3, Capacity: 8})
	for f := range rollnet.Frame(6) {
		require.NoError(t, s.AddLocalInput(0, 100+uint16(f)))
		require.NoError(t, s.AddLocalInput(2, 200+uint16(f)))
		if f >= 3 {
			require.NoError(t, s.AddRemoteInput(1, f, 10+uint16(f)))
		}
		require.NoError(t, s.AdvanceFrame())
	}
	return s
}

// mutPacked is the packing of frames first..base of mutPackSession for mask.
func mutPacked(first, base rollnet.Frame, mask uint32) []byte {
	b := codec.AppendInputs(nil, uint32(base), mask, nil)
	for f := first; f <= base; f++ {
		for p, v := range []uint16{100 + uint16(f), 10 + uint16(f), 200 + uint16(f)} {
			if mask&(1<<p) == 0 {
				v = 0
			}
			b = binary.LittleEndian.AppendUint16(b, v)
		}
	}
	return b
}

func TestMutationPackInputs(t *testing.T) {
	s := mutPackSession(t)
	for _, c := range []struct {
		base        rollnet.Frame
		n           int
		mask        uint32
		first       rollnet.Frame
		description string
	}{
		{5, 3, 0b101, 3, "three frames, player 1's slot zero"},
		{5, 1, 0b101, 5, "one frame"},
		{5, 6, 0b101, 0, "every frame held"},
		{5, 100, 0b101, 0, "clamped to frame 0"},
		{4, 2, 0b001, 3, "an older base"},
		{5, 6, 0b010, 3, "clamped to player 1's confirmed run"},
		{5, 6, 0b111, 3, "clamped to the run confirmed for all"},
	} {
		got, err := s.PackInputs(nil, c.base, c.n, c.mask)
		require.NoError(t, err, c.description)
		require.Equal(t, mutPacked(c.first, c.base, c.mask), got, c.description)
		// With room in dst holding garbage: the same bytes, no allocation.
		dst := make([]byte, 3, 128)
		for i := range dst[:cap(dst)] {
			dst[:cap(dst)][i] = 0xee
		}
		got, err = s.PackInputs(dst, c.base, c.n, c.mask)
		require.NoError(t, err)
		require.Equal(t, append([]byte{0xee, 0xee, 0xee}, mutPacked(c.first, c.base, c.mask)...), got, c.description)
		require.Same(t, &dst[0], &got[0])
	}

	dst := []byte{1, 2}
	for _, c := range []struct {
		base rollnet.Frame
		n    int
		mask uint32
		err  error
	}{
		{5, 0, 1, ErrArgument},
		{5, -1, 1, ErrArgument},
		{5, 1, 0b1000, ErrPlayer},
		{5, 1, 1 << 31, ErrPlayer},
		{-1, 1, 1, ErrOutOfWindow},
		{6 + 7 + 1, 1, 1, ErrOutOfWindow}, // hi = Frame()+InputDelay+W = 13
		{13, 1, 1, ErrNotConfirmed},
		{6, 1, 1, ErrNotConfirmed},
		{2, 1, 0b010, ErrNotConfirmed},
	} {
		got, err := s.PackInputs(dst, c.base, c.n, c.mask)
		require.ErrorIs(t, err, c.err, "%+v", c)
		require.Equal(t, []byte{1, 2}, got)
	}

	// Later, frames before Frame()-W are no longer held.
	for f := range rollnet.Frame(3) {
		require.NoError(t, s.AddRemoteInput(1, f, 1))
	}
	for range 6 {
		require.NoError(t, s.AddLocalInput(0, 1))
		require.NoError(t, s.AdvanceFrame())
	}
	lo, _ := s.acceptWindow()
	require.Equal(t, rollnet.Frame(5), lo)
	got, err := s.PackInputs(nil, 5, 10, 0b001)
	require.NoError(t, err)
	require.Equal(t, mutPacked(5, 5, 0b001), got)
	_, err = s.PackInputs(nil, 4, 1, 0b001)
	require.ErrorIs(t, err, ErrOutOfWindow)

	// From 32 players on, every uint32 mask names a player.
	big, err := New[uint8](Config[uint16]{Players: 40, Capacity: 4}, func(*uint8, []uint16, rollnet.Frame) {})
	require.NoError(t, err)
	_, err = big.PackInputs(nil, 0, 1, 1<<31)
	require.ErrorIs(t, err, ErrNotConfirmed)
	require.NoError(t, big.AddLocalInput(31, 3))
	got, err = big.PackInputs(nil, 0, 1, 1<<31)
	require.NoError(t, err)
	require.Len(t, got, codec.InputsHeaderLen+40*2)
	require.Equal(t, []byte{3, 0}, got[codec.InputsHeaderLen+31*2:][:2])
}

func TestMutationUnpackInputs(t *testing.T) {
	src := mutPackSession(t)
	pkt, err := src.PackInputs(nil, 5, 6, 0b111)
	require.NoError(t, err)

	s := newMutRec(t, Config[uint16]{Players: 3, Capacity: 8})
	require.NoError(t, s.UnpackInputs(pkt))
	for f := range rollnet.Frame(6) {
		for p := range 3 {
			in, ok := s.confirmedInput(p, f)
			require.Equal(t, f >= 3, ok, "player %d frame %d", p, f)
			if ok {
				require.Equal(t, []uint16{100, 10, 200}[p]+uint16(f), in)
			}
		}
	}

	for _, c := range []struct {
		pkt  []byte
		err  error
		desc string
	}{
		{pkt[:7], codec.ErrShort, "short header"},
		{pkt[:8], ErrMalformed, "header alone"},
		{pkt[:9], ErrMalformed, "one byte"},
		{pkt[:8+6+1], ErrMalformed, "a frame and a byte"},
		{codec.AppendInputs(nil, 5, 0b1000, make([]byte, 6)), ErrPlayer, "mask names player 3"},
		{codec.AppendInputs(nil, 5, 1<<31, make([]byte, 6)), ErrPlayer, "mask names player 31"},
		{codec.AppendInputs(nil, math.MaxInt32+1, 1, make([]byte, 6)), ErrMalformed, "base past MaxInt32"},
		{codec.AppendInputs(nil, math.MaxUint32, 1, make([]byte, 6)), ErrMalformed, "base -1 as u32"},
		{codec.AppendInputs(nil, 1, 1, make([]byte, 18)), ErrMalformed, "first frame -1"},
	} {
		before := s.Stats()
		require.ErrorIs(t, s.UnpackInputs(c.pkt), c.err, c.desc)
		require.Equal(t, before, s.Stats())
	}
	require.ErrorIs(t, s.UnpackInputs(pkt[:8+6+1]), codec.ErrMalformed)
	// The largest base frame fits a Frame: it is well formed, just far
	// out of the window.
	err = s.UnpackInputs(codec.AppendInputs(nil, math.MaxInt32, 1, make([]byte, 12)))
	require.ErrorIs(t, err, ErrOutOfWindow)
	require.NotErrorIs(t, err, ErrMalformed)

	// Frames 0..2 of a packet ending at 2: the first is frame 0.
	require.NoError(t, s.UnpackInputs(codec.AppendInputs(nil, 2, 0b010, []byte{0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 0})))
	for f := range rollnet.Frame(3) {
		in, ok := s.confirmedInput(1, f)
		require.True(t, ok)
		require.Equal(t, uint16(f)+1, in)
	}

	// Every input is fed; the first error is returned.
	err = s.UnpackInputs(codec.AppendInputs(nil, 8, 0b001, []byte{42, 0, 0, 0, 0, 0, 43, 0, 0, 0, 0, 0, 44, 0, 0, 0, 0, 0}))
	require.ErrorIs(t, err, ErrOutOfWindow) // 6, 7 are held (hi = 7), 8 is not
	_, ok := s.confirmedInput(0, 8)
	require.False(t, ok)
	for f, want := range map[rollnet.Frame]uint16{6: 42, 7: 43} {
		in, ok := s.confirmedInput(0, f)
		require.True(t, ok)
		require.Equal(t, want, in)
	}
	err = s.UnpackInputs(codec.AppendInputs(nil, 5, 0b001, []byte{0, 0, 0, 0, 0, 0, 105, 0, 0, 0, 0, 0}))
	var ce *ConflictError
	require.ErrorAs(t, err, &ce) // frame 4 is 104, frame 5 agrees
	require.Equal(t, rollnet.Frame(4), ce.Frame)

	// A value its type cannot hold fails before anything is fed, in any
	// frame; a slot outside the mask is not read.
	newB := func() *Session[uint8, mutInput] {
		b, err := New[uint8](Config[mutInput]{Players: 2, Capacity: 4}, func(*uint8, []mutInput, rollnet.Frame) {})
		require.NoError(t, err)
		return b
	}
	good := []byte{7, 1, 0, 0, 1, 0, 0, 0}
	bad := []byte{7, 3, 0, 0, 1, 0, 0, 0}
	for _, c := range []struct {
		mask   uint32
		frames [][]byte
	}{
		{0b10, [][]byte{good, bad, good, good}},
		{0b01, [][]byte{bad, good, good, good}},
		{0b01, [][]byte{good, good, bad, good}},
		{0b11, [][]byte{good, good, good, bad}},
	} {
		b := newB()
		err := b.UnpackInputs(codec.AppendInputs(nil, 1, c.mask, slicesConcat(c.frames...)))
		require.ErrorIs(t, err, ErrMalformed)
		require.ErrorIs(t, err, codec.ErrMalformed)
		for p := range 2 {
			_, ok := b.confirmedInput(p, 0)
			require.False(t, ok)
		}
	}
	b := newB()
	require.NoError(t, b.UnpackInputs(codec.AppendInputs(nil, 1, 0b01, slicesConcat(good, bad, good, bad))))
	in, ok := b.confirmedInput(0, 1)
	require.True(t, ok)
	require.Equal(t, mutInput{A: 7, B: true, C: [2]struct {
		X bool
		Y uint8
	}{{false, 0}, {true, 0}}}, in)
	_, ok = b.confirmedInput(1, 0)
	require.False(t, ok)
}

func slicesConcat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestMutationSyncTestConfig(t *testing.T) {
	sim := func(*uint8, []uint16, rollnet.Frame) {}
	for _, c := range []struct {
		capacity, distance, want int
	}{
		{4, 0, 2}, {4, 1, 1}, {4, 3, 3}, {2, 1, 1}, {0, 15, 15},
	} {
		st, err := NewSyncTest[uint8](SyncTestConfig[uint16]{Config: Config[uint16]{Players: 1, Capacity: c.capacity}, CheckDistance: c.distance}, sim)
		require.NoError(t, err, "%+v", c)
		require.Equal(t, c.want, st.checkDistance())
	}
	for _, c := range []struct{ capacity, distance int }{{4, 4}, {4, -1}, {2, 2}, {2, 0}, {0, 16}} {
		st, err := NewSyncTest[uint8](SyncTestConfig[uint16]{Config: Config[uint16]{Players: 1, Capacity: c.capacity}, CheckDistance: c.distance}, sim)
		require.ErrorIs(t, err, rollnet.ErrConfig, "%+v", c)
		require.Nil(t, st)
	}
	_, err := NewSyncTest[uint8](SyncTestConfig[uint16]{Config: Config[uint16]{Players: 0}}, sim)
	require.ErrorIs(t, err, rollnet.ErrConfig)
	_, err = NewSyncTest[uint8](SyncTestConfig[uint16]{Config: Config[uint16]{Players: 1, Capacity: 4}, CheckDistance: 4}, sim)
	require.EqualError(t, err, "rollnet: invalid config: session: CheckDistance 4 not in [1, Capacity-1 = 3]")
}

// mutSyncWorld is a state every input and frame changes.
type mutSyncWorld struct {
	H uint64
	F int32
	_ [4]byte
}

func TestMutationSyncTest(t *testing.T) {
	for _, d := range []int{1, 2, 3, 7} {
		calls := make([]int, 40) // simulations per frame
		sim := func(w *mutSyncWorld, in []uint16, f rollnet.Frame) {
			calls[f]++
			w.H = (w.H^uint64(in[0]))*0x100000001b3 + uint64(in[1]) + uint64(f)
			w.F = int32(f)
		}
		st, err := NewSyncTest[mutSyncWorld](SyncTestConfig[uint16]{Config: Config[uint16]{Players: 2, Capacity: 8}, CheckDistance: d}, sim)
		require.NoError(t, err)
		plain, err := New[mutSyncWorld](Config[uint16]{Players: 2, Capacity: 8}, func(w *mutSyncWorld, in []uint16, f rollnet.Frame) {
			w.H = (w.H^uint64(in[0]))*0x100000001b3 + uint64(in[1]) + uint64(f)
			w.F = int32(f)
		})
		require.NoError(t, err)
		for f := range rollnet.Frame(30) {
			for _, s := range []*Session[mutSyncWorld, uint16]{st.Session, plain} {
				require.NoError(t, s.AddLocalInput(0, uint16(f*7)))
				require.NoError(t, s.AddLocalInput(1, uint16(f%3)))
			}
			require.NoError(t, st.AdvanceFrame(), "distance %d frame %d", d, f)
			require.NoError(t, plain.AdvanceFrame())
			require.Equal(t, *plain.State(), *st.State())
			require.Equal(t, f+1, st.Frame())
		}
		for f := range 30 - d {
			require.Equal(t, 1+d, calls[f], "distance %d: frame %d simulated %d times", d, f, calls[f])
		}
		// Every state still held is the one a plain session committed.
		for f := rollnet.Frame(29 - 7); f < 30; f++ {
			a, err := st.ChecksumAt(f)
			require.NoError(t, err)
			b, err := plain.ChecksumAt(f)
			require.NoError(t, err)
			require.Equal(t, b, a, "frame %d", f)
		}
	}
}

func TestMutationSyncTestDetects(t *testing.T) {
	good := func(w mutSyncWorld, f rollnet.Frame) mutSyncWorld {
		w.H = w.H*31 + uint64(f) + 1
		w.F = int32(f)
		return w
	}
	// Distance 1: frame 5's second simulation differs, once.
	calls := make([]int, 20)
	sim := func(w *mutSyncWorld, in []uint16, f rollnet.Frame) {
		calls[f]++
		*w = good(*w, f)
		if f == 5 && calls[f] == 2 {
			w.H ^= 1 << 40
		}
	}
	st, err := NewSyncTest[mutSyncWorld](SyncTestConfig[uint16]{Config: Config[uint16]{Players: 1, Capacity: 8}, CheckDistance: 1}, sim)
	require.NoError(t, err)
	var w mutSyncWorld
	for f := range rollnet.Frame(12) {
		require.NoError(t, st.AddLocalInput(0, 1))
		err := st.AdvanceFrame()
		require.Equal(t, f+1, st.Frame(), "the session moves on")
		w = good(w, f)
		if f != 5 {
			require.NoError(t, err, "frame %d", f)
			require.Equal(t, w, *st.State())
			continue
		}
		var de *DesyncError
		require.ErrorAs(t, err, &de)
		bad := w
		bad.H ^= 1 << 40
		require.Equal(t, DesyncError{Frame: 5, Want: rollback.Checksum(rollback.BytesOf(&w)), Got: rollback.Checksum(rollback.BytesOf(&bad))}, *de)
		require.Equal(t, bad, *st.State(), "the re-simulated state is kept")
		w = bad
	}

	// Distance 3: every simulation of frames 9 and later differs from the
	// one before; the earliest frame that differs is reported.
	calls = make([]int, 20)
	sim2 := func(w *mutSyncWorld, in []uint16, f rollnet.Frame) {
		calls[f]++
		*w = good(*w, f)
		if f >= 9 {
			w.H ^= uint64(calls[f]) << 40
		}
	}
	st, err = NewSyncTest[mutSyncWorld](SyncTestConfig[uint16]{Config: Config[uint16]{Players: 1, Capacity: 8}, CheckDistance: 3}, sim2)
	require.NoError(t, err)
	for f := range rollnet.Frame(14) {
		require.NoError(t, st.AddLocalInput(0, 1))
		err := st.AdvanceFrame()
		if f < 9 {
			require.NoError(t, err, "frame %d", f)
			continue
		}
		var de *DesyncError
		require.ErrorAs(t, err, &de, "frame %d", f)
		require.Equal(t, max(rollnet.Frame(9), f-2), de.Frame, "step of frame %d", f)
		require.NotEqual(t, de.Want, de.Got)
		require.Equal(t, fmt.Sprintf("session: desync at frame %d: first simulation checksum %08x, re-simulation %08x", de.Frame, de.Want, de.Got), de.Error())
	}
	require.ErrorIs(t, errors.Unwrap(&ConflictError{}), ErrConflict)
}

// TestMutationRand pins Rand to SplitMix64's published outputs and its
// derived methods to their definitions.
func TestMutationRand(t *testing.T) {
	r := rollnet.NewRand(0)
	for _, want := range []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f} {
		require.Equal(t, want, r.Uint64())
	}
	inc := uint64(0x9e3779b97f4a7c15)
	require.Equal(t, 3*inc, r.S)
	seeded := rollnet.NewRand(1234567)
	require.Equal(t, rollnet.Rand{S: 1234567}, seeded)

	for seed := range uint64(200) {
		a, b := rollnet.NewRand(seed), rollnet.NewRand(seed)
		u := b.Uint64()
		require.Equal(t, uint32(u>>32), a.Uint32())
		a, b = rollnet.NewRand(seed), rollnet.NewRand(seed)
		u = b.Uint64()
		require.Equal(t, u&1 != 0, a.Bool())
		a, b = rollnet.NewRand(seed), rollnet.NewRand(seed)
		u = b.Uint64()
		f := a.Float64()
		require.Equal(t, float64(u>>11)/(1<<53), f)
		require.GreaterOrEqual(t, f, 0.0)
		require.Less(t, f, 1.0)
	}

	// Uint32N against the textbook unbiased method: reject products whose
	// low word is below 2^32 mod n.
	ref := func(r *rollnet.Rand, n uint32) uint32 {
		thresh := uint32((uint64(1) << 32) % uint64(n))
		for {
			m := uint64(r.Uint32()) * uint64(n)
			if uint32(m) >= thresh {
				return uint32(m >> 32)
			}
		}
	}
	rejections := 0
	for _, n := range []uint32{1, 2, 3, 7, 1000, 1<<31 + 1, 3 << 30, math.MaxUint32} {
		a, b := rollnet.NewRand(uint64(n)), rollnet.NewRand(uint64(n))
		for range 300 {
			before := b.S
			want := ref(&b, n)
			if b.S-before > 0x9e3779b97f4a7c15 {
				rejections++
			}
			got := a.Uint32N(n)
			require.Equal(t, want, got, "n %d", n)
			require.Less(t, got, n)
			require.Equal(t, b.S, a.S)
			if n <= math.MaxInt32 {
				c, d := rollnet.NewRand(b.S), rollnet.NewRand(b.S)
				require.Equal(t, int32(c.Uint32N(n)), d.Int32N(int32(n)))
			}
		}
	}
	require.Positive(t, rejections, "the rejection loop ran")
	require.PanicsWithValue(t, "session: Rand.Uint32N with n == 0", func() { r.Uint32N(0) })
	require.PanicsWithValue(t, "session: Rand.Int32N with n <= 0", func() { r.Int32N(0) })
	require.PanicsWithValue(t, "session: Rand.Int32N with n <= 0", func() { r.Int32N(-1) })
	one := rollnet.NewRand(9)
	require.Zero(t, one.Int32N(1))
}
