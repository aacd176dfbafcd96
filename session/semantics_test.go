package session

import (
	"errors"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/stretchr/testify/require"
)

// Each test here pins one rule of the session's contract (see doc.go).

func TestConfigRefused(t *testing.T) {
	sim := func(*world, []uint16, rollnet.Frame) {}
	for _, tc := range []struct {
		name string
		cfg  Config[uint16]
	}{
		{"no players", Config[uint16]{}},
		{"65 players", Config[uint16]{Players: 65}},
		{"capacity not a power of two", Config[uint16]{Players: 2, Capacity: 12}},
		{"negative capacity", Config[uint16]{Players: 2, Capacity: -4}},
		{"negative delay", Config[uint16]{Players: 2, InputDelay: -1}},
		{"delay past the ring", Config[uint16]{Players: 2, Capacity: 8, InputDelay: 8}},
		{"window zero", Config[uint16]{Players: 2, Capacity: 8, InputDelay: 7}},
		{"capacity 1", Config[uint16]{Players: 2, Capacity: 1}},
		{"prediction past the window", Config[uint16]{Players: 2, Capacity: 8, InputDelay: 2, MaxPrediction: 6}},
		{"negative prediction", Config[uint16]{Players: 2, MaxPrediction: -1}},
		{"lockstep with prediction", Config[uint16]{Players: 2, Lockstep: true, MaxPrediction: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New[world](tc.cfg, sim)
			require.ErrorIs(t, err, rollnet.ErrConfig)
		})
	}
	_, err := New[world](Config[uint16]{Players: 2}, nil)
	require.ErrorIs(t, err, rollnet.ErrConfig, "nil simulate")
	_, err = New[struct{ A int }](Config[uint16]{Players: 2}, func(*struct{ A int }, []uint16, rollnet.Frame) {}) //rollnet:ok the state type is refused on purpose
	require.ErrorIs(t, err, rollnet.ErrConfig, "int in state")
	_, err = New[world](Config[string]{Players: 2}, func(*world, []string, rollnet.Frame) {})
	require.ErrorIs(t, err, rollnet.ErrConfig, "string input")
	_, err = New[world](Config[struct {
		A uint8
		B uint16
	}]{Players: 2}, func(*world, []struct {
		A uint8
		B uint16
	}, rollnet.Frame) {
	})
	require.ErrorIs(t, err, rollnet.ErrConfig, "input with padding")

	// What does work: the edges.
	for _, cfg := range []Config[uint16]{
		{Players: 1},
		{Players: 64},
		{Players: 2, Capacity: 2},
		{Players: 2, Capacity: 8, InputDelay: 6},
		{Players: 2, Capacity: 8, InputDelay: 2, MaxPrediction: 5},
		{Players: 2, Capacity: 1, Lockstep: true},
		{Players: 2, Capacity: 8, InputDelay: 7, Lockstep: true},
	} {
		_, err := New[world](cfg, sim)
		require.NoError(t, err, "%+v", cfg)
	}
}

// TestGenesisCoversInitialState: the first AdvanceFrame commits the state written
// before it, so a misprediction at frame 0 rolls back to it.
func TestGenesisCoversInitialState(t *testing.T) {
	s := newWorld(t, Config[uint16]{Players: 2})
	s.State().Acc[0] = 12345
	s.State().R = rollnet.NewRand(7)
	start := *s.State()

	require.NoError(t, s.AddLocalInput(0, 1))
	step(t, s, 1) // player 1 predicted 0 at frame 0
	require.NoError(t, s.AddRemoteInput(1, 0, 9))
	require.NoError(t, s.AddLocalInput(0, 1))
	step(t, s, 1)
	require.Equal(t, 1, s.Stats().Rollbacks)

	want := start
	simWorld(&want, []uint16{1, 9}, 0)
	got, err := s.StateAt(0)
	require.NoError(t, err)
	require.Equal(t, want, *got)
	genesis, err := s.StateAt(rollnet.NoFrame)
	require.NoError(t, err)
	require.Equal(t, start, *genesis, "frame -1 is the genesis state")
}

// TestGenesisAfterReset: Reset zeroes everything and the next AdvanceFrame
// commits a new genesis that a frame-0 misprediction rolls back to.
func TestGenesisAfterReset(t *testing.T) {
	s := newWorld(t, Config[uint16]{Players: 2, InputDelay: 1})
	for range 40 {
		require.NoError(t, s.AddLocalInput(0, 3))
		step(t, s, 1)
		require.NoError(t, s.AddRemoteInput(1, s.Frame(), 2))
	}
	require.NotZero(t, s.Frame())
	s.Reset()
	require.Equal(t, world{}, *s.State())
	require.Equal(t, rollnet.Frame(0), s.Frame())
	require.Equal(t, rollnet.Frame(0), s.ConfirmedFrame())
	require.Equal(t, Stats{}, s.Stats())
	_, err := s.ChecksumAt(rollnet.NoFrame)
	require.ErrorIs(t, err, ErrOutOfWindow, "nothing held before the first Step")
	_, ok := s.confirmedInput(1, 20)
	require.False(t, ok, "inputs of the last match are gone")

	s.State().Acc[5] = 77
	start := *s.State()
	require.NoError(t, s.AddLocalInput(0, 4)) // frame 1
	step(t, s, 2)                             // frames 0 (delay) and 1, player 1 predicted 0 at 1
	require.NoError(t, s.AddRemoteInput(1, 1, 8))
	step(t, s, 1)
	require.Equal(t, 1, s.Stats().Rollbacks)
	want := start
	simWorld(&want, []uint16{0, 0}, 0)
	simWorld(&want, []uint16{4, 8}, 1)
	got, err := s.StateAt(1)
	require.NoError(t, err)
	require.Equal(t, want, *got)
	genesis, err := s.StateAt(rollnet.NoFrame)
	require.NoError(t, err)
	require.Equal(t, start, *genesis, "a new genesis after Reset")
}

// TestInputDelayFramesAreZeroAndConfirmed: frames [0, InputDelay) have
// the zero input for everyone, confirmed; local input lands InputDelay
// frames ahead.
func TestInputDelayFramesAreZeroAndConfirmed(t *testing.T) {
	s := newRecord(t, Config[uint16]{Players: 3, InputDelay: 3})
	require.Equal(t, rollnet.Frame(2), s.ConfirmedFrame())
	require.NoError(t, s.AddLocalInput(0, 7)) // frame 3
	require.NoError(t, s.AddRemoteInput(1, 1, 0), "a zero for a delay frame is a duplicate")
	require.ErrorIs(t, s.AddRemoteInput(2, 1, 5), ErrConflict, "a delay frame has no input but zero")
	step(t, s, 4)
	for f := range 3 {
		require.Equal(t, [4]uint16{}, s.State().In[f])
	}
	require.Equal(t, uint16(7), s.State().In[3][0])
	require.Equal(t, 0, s.Stats().Rollbacks)

	s0 := newRecord(t, Config[uint16]{Players: 2})
	require.Equal(t, rollnet.NoFrame, s0.ConfirmedFrame())
}

// TestRemoteInputWindow: accepted from Frame()-W to
// Frame()+InputDelay+MaxPrediction; older is stale, newer refused.
func TestRemoteInputWindow(t *testing.T) {
	// Capacity 16, delay 2: W = 13; MaxPrediction 5.
	s := newRecord(t, Config[uint16]{Players: 2, Capacity: 16, InputDelay: 2, MaxPrediction: 5})
	for range 30 {
		require.NoError(t, s.AddLocalInput(0, 1))
		require.NoError(t, s.AddRemoteInput(1, s.Frame()+2, 1))
		step(t, s, 1)
	}
	// Player 1 goes quiet: run to the prediction limit.
	for s.AdvanceFrame() == nil {
		require.NoError(t, s.AddLocalInput(0, 1))
	}
	f := s.Frame()
	lo, hi := f-13, f+2+5
	require.Equal(t, 0, s.Stats().StaleInputs)
	require.NoError(t, s.AddRemoteInput(1, lo-1, 6))
	require.Equal(t, 1, s.Stats().StaleInputs, "one below the window is stale")
	require.NoError(t, s.AddRemoteInput(1, lo, 1), "the window's oldest frame is accepted")
	require.Equal(t, 1, s.Stats().StaleInputs)

	require.ErrorIs(t, s.AddRemoteInput(1, hi+1, 3), ErrOutOfWindow)
	_, ok := s.confirmedInput(1, hi+1)
	require.False(t, ok, "nothing stored for a refused frame")
	require.NoError(t, s.AddRemoteInput(1, hi, 3), "a peer ahead by the whole prediction window")
	in, ok := s.confirmedInput(1, hi)
	require.True(t, ok)
	require.Equal(t, uint16(3), in)
	require.ErrorIs(t, s.AddRemoteInput(1, -1, 3), ErrOutOfWindow, "no frame before 0")
}

// TestSlotReuseClearsOldRevolution: an input-ring slot reused a
// revolution later does not show the old frame's input as confirmed.
func TestSlotReuseClearsOldRevolution(t *testing.T) {
	s := newRecord(t, Config[uint16]{Players: 2, Capacity: 4})
	slots := len(s.tags)
	// Player 1 sends far ahead (the whole window) every frame, so every
	// slot holds a confirmed input of a frame a revolution before the
	// frames it will hold next.
	for range 5 * slots {
		require.NoError(t, s.AddLocalInput(0, 1))
		_, hi := s.acceptWindow()
		for f := s.playerConfirmedFrame(1) + 1; f <= hi; f++ {
			require.NoError(t, s.AddRemoteInput(1, f, uint16(f%7)))
		}
		step(t, s, 1)
	}
	c := s.playerConfirmedFrame(1)
	f := c + 1           // its slot holds frame f-slots, confirmed
	for s.Frame() <= f { // simulate f, with player 1 silent
		require.NoError(t, s.AddLocalInput(0, 1))
		step(t, s, 1)
	}
	_, ok := s.confirmedInput(1, f)
	require.False(t, ok)
	require.Equal(t, c, s.playerConfirmedFrame(1), "confirmation did not leak from the old revolution")
	require.NoError(t, s.AddRemoteInput(1, f, uint16(f%7)+1), "not a conflict with the old revolution's value")
	require.Equal(t, f, s.playerConfirmedFrame(1))
}

// TestStaleCheckedFirst: a stale input is ignored even if it would
// conflict.
func TestStaleCheckedFirst(t *testing.T) {
	s := newRecord(t, Config[uint16]{Players: 2, Capacity: 4})
	for range 10 {
		require.NoError(t, s.AddLocalInput(0, 1))
		require.NoError(t, s.AddRemoteInput(1, s.Frame(), 1))
		step(t, s, 1)
	}
	require.NoError(t, s.AddRemoteInput(1, 2, 9))
	require.Equal(t, Stats{StaleInputs: 1}, s.Stats())
}

// TestDuplicateIgnored: the same confirmed input again does nothing.
func TestDuplicateIgnored(t *testing.T) {
	s := newRecord(t, Config[uint16]{Players: 2})
	require.NoError(t, s.AddLocalInput(0, 1))
	step(t, s, 1)
	require.NoError(t, s.AddRemoteInput(1, 0, 5))
	require.NoError(t, s.AddRemoteInput(1, 0, 5))
	require.NoError(t, s.AddRemoteInput(1, 1, 5))
	require.NoError(t, s.AddRemoteInput(1, 1, 5))
	require.Equal(t, Stats{Mispredictions: 1}, s.Stats())
}

// TestConflictIsDesyncNotRollback: a different value for a confirmed
// input is a desync: the first value stays, no rollback, Desyncs counts,
// OnDesync fires, the error names frame and player.
func TestConflictIsDesyncNotRollback(t *testing.T) {
	var fired []rollnet.Frame
	s := newRecord(t, Config[uint16]{Players: 2, OnDesync: func(f rollnet.Frame, p int) {
		require.Equal(t, 1, p)
		fired = append(fired, f)
	}})
	require.NoError(t, s.AddLocalInput(0, 1))
	require.NoError(t, s.AddRemoteInput(1, 0, 5))
	step(t, s, 1)
	err := s.AddRemoteInput(1, 0, 6)
	require.ErrorIs(t, err, ErrConflict)
	var ce *ConflictError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, ConflictError{Frame: 0, Player: 1}, *ce)
	require.Contains(t, err.Error(), "frame 0 player 1")
	require.Equal(t, []rollnet.Frame{0}, fired)
	require.Equal(t, Stats{Desyncs: 1}, s.Stats())
	in, _ := s.confirmedInput(1, 0)
	require.Equal(t, uint16(5), in, "the first value stays")
	step(t, s, 1)
	require.Equal(t, 0, s.Stats().Rollbacks)

	// A conflict on a frame not yet simulated is a desync too.
	require.NoError(t, s.AddRemoteInput(1, 5, 1))
	require.ErrorIs(t, s.AddRemoteInput(1, 5, 2), ErrConflict)
	require.Equal(t, 2, s.Stats().Desyncs)
}

// TestBadPlayer: a player outside [0, Players) is ErrPlayer everywhere.
func TestBadPlayer(t *testing.T) {
	s := newRecord(t, Config[uint16]{Players: 2})
	require.ErrorIs(t, s.AddLocalInput(2, 1), ErrPlayer)
	require.ErrorIs(t, s.AddLocalInput(-1, 1), ErrPlayer)
	require.ErrorIs(t, s.AddRemoteInput(2, 0, 1), ErrPlayer)
	require.ErrorIs(t, s.AddRemoteInput(-1, 0, 1), ErrPlayer)
	require.Equal(t, Stats{}, s.Stats())
}

// TestLocalInputReplaced: a local input given again before its frame is
// simulated replaces the old one, including after a refused AdvanceFrame.
func TestLocalInputReplaced(t *testing.T) {
	s := newRecord(t, Config[uint16]{Players: 2, InputDelay: 1, Lockstep: true})
	require.NoError(t, s.AddLocalInput(0, 3)) // frame 1
	require.NoError(t, s.AddLocalInput(0, 4)) // replaces it
	step(t, s, 1)                             // frame 0: delay
	require.NoError(t, s.AddLocalInput(0, 5)) // frame 2
	require.ErrorIs(t, s.AdvanceFrame(), ErrPredictionLimit)
	require.NoError(t, s.AddLocalInput(0, 6)) // the loop retries: still frame 2
	require.NoError(t, s.AddRemoteInput(1, 1, 2))
	require.NoError(t, s.AddRemoteInput(1, 2, 2))
	step(t, s, 2)
	require.Equal(t, [4]uint16{4, 2}, s.State().In[1])
	require.Equal(t, [4]uint16{6, 2}, s.State().In[2])
	require.Equal(t, Stats{}, s.Stats())
}

// TestPredictionFromNearestEarlierFrame: a missing input is predicted
// from the input confirmed for the nearest earlier frame, by frame, not
// by arrival; the zero value if none.
func TestPredictionFromNearestEarlierFrame(t *testing.T) {
	s := newRecord(t, Config[uint16]{Players: 2})
	local := func() { require.NoError(t, s.AddLocalInput(0, 1)) }
	local()
	step(t, s, 1)
	require.Equal(t, uint16(0), s.State().In[0][1], "nothing confirmed: zero")
	require.NoError(t, s.AddRemoteInput(1, 0, 0))
	require.NoError(t, s.AddRemoteInput(1, 1, 3))
	require.NoError(t, s.AddRemoteInput(1, 5, 9)) // arrives last, but for a later frame
	require.NoError(t, s.AddRemoteInput(1, 2, 4)) // the newest by arrival before frame 5
	for range 6 {
		local()
		step(t, s, 1)
	}
	require.Equal(t, uint16(3), s.State().In[1][1])
	require.Equal(t, uint16(4), s.State().In[2][1])
	require.Equal(t, uint16(4), s.State().In[3][1], "frame 2's input, the nearest earlier confirmed")
	require.Equal(t, uint16(4), s.State().In[4][1])
	require.Equal(t, uint16(9), s.State().In[5][1])
	require.Equal(t, uint16(9), s.State().In[6][1], "frame 5's input")

	// Now a rollback re-predicts from what is known then: an input for
	// frame 3 makes frame 4 predicted from frame 3.
	require.NoError(t, s.AddRemoteInput(1, 3, 7))
	local()
	step(t, s, 1)
	require.Equal(t, uint16(7), s.State().In[3][1])
	require.Equal(t, uint16(7), s.State().In[4][1])
	require.Equal(t, uint16(9), s.State().In[5][1])
}

// TestPredictReceivesLast: Config.Predict gets the nearest earlier
// confirmed input as last, and its result is what is simulated.
func TestPredictReceivesLast(t *testing.T) {
	type call struct {
		player int
		last   uint16
		frame  rollnet.Frame
	}
	var calls []call
	s := newRecord(t, Config[uint16]{Players: 2, Predict: func(p int, last uint16, f rollnet.Frame) uint16 {
		calls = append(calls, call{p, last, f})
		return last + 100
	}})
	require.NoError(t, s.AddLocalInput(0, 1))
	require.NoError(t, s.AddRemoteInput(1, 0, 6))
	step(t, s, 1)
	require.Empty(t, calls, "confirmed inputs are not predicted")
	require.NoError(t, s.AddLocalInput(0, 1))
	step(t, s, 1)
	require.Equal(t, []call{{1, 6, 1}}, calls)
	require.Equal(t, uint16(106), s.State().In[1][1])
}

// TestPredictionLimit: AdvanceFrame refuses, changing nothing, once Frame() is
// more than MaxPrediction frames past ConfirmedFrame().
func TestPredictionLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   Config[uint16]
		limit int
	}{
		{"explicit", Config[uint16]{Players: 2, Capacity: 16, MaxPrediction: 4}, 4},
		{"zero means the window", Config[uint16]{Players: 2, Capacity: 16, InputDelay: 3}, 12},
		{"lockstep means zero", Config[uint16]{Players: 2, Capacity: 16, Lockstep: true}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newRecord(t, tc.cfg)
			d := rollnet.Frame(tc.cfg.InputDelay)
			n := 0
			for {
				require.NoError(t, s.AddLocalInput(0, 1))
				if s.AdvanceFrame() != nil {
					break
				}
				n++
			}
			require.Equal(t, tc.limit+int(d), n, "frames run with player 1 silent")
			// Mark a rollback, then check that a refused AdvanceFrame changes nothing.
			if n > int(d)+1 {
				require.NoError(t, s.AddRemoteInput(1, s.Frame()-1, 5))
				require.NotEqual(t, rollnet.NoFrame, s.pending)
			}
			before, stats, pending, depth := *s.State(), s.Stats(), s.pending, s.ring.Depth()
			require.ErrorIs(t, s.AdvanceFrame(), ErrPredictionLimit)
			require.Equal(t, before, *s.State())
			require.Equal(t, stats, s.Stats())
			require.Equal(t, pending, s.pending)
			require.Equal(t, depth, s.ring.Depth())
			require.Equal(t, rollnet.Frame(n), s.Frame())
			require.NoError(t, s.AddRemoteInput(1, s.ConfirmedFrame()+1, 5))
			step(t, s, 1)
		})
	}
	// A refused first AdvanceFrame does not commit genesis.
	s := newRecord(t, Config[uint16]{Players: 2, Lockstep: true})
	require.ErrorIs(t, s.AdvanceFrame(), ErrPredictionLimit)
	require.Equal(t, 0, s.ring.Depth())
	s.State().Count[63] = 1 // still the initial state
	require.NoError(t, s.AddLocalInput(0, 1))
	require.NoError(t, s.AddRemoteInput(1, 0, 1))
	step(t, s, 1)
	g, err := s.StateAt(rollnet.NoFrame)
	require.NoError(t, err)
	require.Equal(t, uint32(1), g.Count[63])
}

// TestConfirmedFrameMayLeadFrame: inputs ahead of Frame() confirm frames
// not yet simulated.
func TestConfirmedFrameMayLeadFrame(t *testing.T) {
	s := newRecord(t, Config[uint16]{Players: 2, InputDelay: 2})
	require.NoError(t, s.AddLocalInput(0, 1)) // frame 2
	require.NoError(t, s.AddRemoteInput(1, 2, 1))
	require.NoError(t, s.AddRemoteInput(1, 3, 1))
	require.Equal(t, rollnet.Frame(2), s.ConfirmedFrame())
	require.Equal(t, rollnet.Frame(0), s.Frame())
	require.Equal(t, 0, s.frameAdvantage()) // local covers frame 2; confirmed 2
}

// TestFrameAdvantage: the newest local frame minus ConfirmedFrame().
func TestFrameAdvantage(t *testing.T) {
	s := newRecord(t, Config[uint16]{Players: 2, InputDelay: 2})
	require.Equal(t, 0, s.frameAdvantage())
	for range 4 {
		require.NoError(t, s.AddLocalInput(0, 1))
		step(t, s, 1)
	}
	// Local covers frames up to 5; confirmed is 1 (the delay frames).
	require.Equal(t, 4, s.frameAdvantage())
	require.NoError(t, s.AddRemoteInput(1, 2, 1))
	require.NoError(t, s.AddRemoteInput(1, 3, 1))
	require.Equal(t, 2, s.frameAdvantage())
}

// TestChecksumAtWindow: held committed states answer; others, and frames
// awaiting re-simulation, are ErrOutOfWindow.
func TestChecksumAtWindow(t *testing.T) {
	s := newWorld(t, Config[uint16]{Players: 2, Capacity: 8})
	_, err := s.ChecksumAt(rollnet.NoFrame)
	require.ErrorIs(t, err, ErrOutOfWindow)
	sums := map[rollnet.Frame]uint32{}
	for range 20 {
		require.NoError(t, s.AddLocalInput(0, 1))
		require.NoError(t, s.AddRemoteInput(1, s.Frame(), 2))
		step(t, s, 1)
		sums[s.Frame()-1] = worldSum(s.State())
	}
	for f := rollnet.Frame(12); f <= 19; f++ {
		got, err := s.ChecksumAt(f)
		require.NoError(t, err)
		require.Equal(t, sums[f], got)
		st, err := s.StateAt(f)
		require.NoError(t, err)
		require.Equal(t, sums[f], worldSum(st))
	}
	for _, f := range []rollnet.Frame{11, 20, 100, -1, -5} {
		_, err := s.ChecksumAt(f)
		require.ErrorIs(t, err, ErrOutOfWindow, "frame %d", f)
		_, err = s.StateAt(f)
		require.ErrorIs(t, err, ErrOutOfWindow, "frame %d", f)
	}
	// A misprediction marks frames from 18 as awaiting re-simulation.
	require.NoError(t, s.AddLocalInput(0, 1))
	step(t, s, 1) // frame 20, player 1 predicted
	require.NoError(t, s.AddRemoteInput(1, 20, 3))
	_, err = s.ChecksumAt(20)
	require.ErrorIs(t, err, ErrOutOfWindow)
	_, err = s.ChecksumAt(19)
	require.NoError(t, err)
}

// TestOneRollbackPerStep: however many late inputs arrive between two
// AdvanceFrame calls, the next AdvanceFrame rolls back once, from the earliest wrong frame.
func TestOneRollbackPerStep(t *testing.T) {
	var count [16]int
	s, err := New[record](Config[uint16]{Players: 3}, func(r *record, in []uint16, f rollnet.Frame) {
		count[f]++
		simRecord(r, in, f)
	})
	require.NoError(t, err)
	for range 10 {
		require.NoError(t, s.AddLocalInput(0, 1))
		step(t, s, 1)
	}
	require.NoError(t, s.AddRemoteInput(1, 7, 4))
	require.NoError(t, s.AddRemoteInput(2, 3, 4))
	require.NoError(t, s.AddRemoteInput(1, 5, 4))
	require.NoError(t, s.AddRemoteInput(2, 9, 4))
	require.Equal(t, 4, s.Stats().Mispredictions)
	require.NoError(t, s.AddLocalInput(0, 1))
	step(t, s, 1)
	require.Equal(t, Stats{Rollbacks: 1, MaxRollbackDepth: 7, Mispredictions: 4, ResimulatedFrames: 7}, s.Stats())
	require.Equal(t, [16]int{1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 1}, count)
}

// TestResimulatedFramesCountsOnlyRedos: the new frame of a AdvanceFrame is not a
// re-simulated frame; an input equal to its prediction causes no
// rollback.
func TestResimulatedFramesCountsOnlyRedos(t *testing.T) {
	s := newRecord(t, Config[uint16]{Players: 2})
	for range 6 {
		require.NoError(t, s.AddLocalInput(0, 1))
		step(t, s, 1)
	}
	require.NoError(t, s.AddRemoteInput(1, 0, 0)) // as predicted
	require.NoError(t, s.AddRemoteInput(1, 4, 2)) // wrong: frames 4, 5
	require.NoError(t, s.AddLocalInput(0, 1))
	step(t, s, 1)
	require.Equal(t, Stats{Rollbacks: 1, MaxRollbackDepth: 2, Mispredictions: 1, ResimulatedFrames: 2}, s.Stats())
	require.NoError(t, s.AddRemoteInput(1, 1, 0))
	require.NoError(t, s.AddLocalInput(0, 1))
	step(t, s, 1)
	require.Equal(t, 2, s.Stats().ResimulatedFrames, "no rollback without a misprediction")
}

// TestRollbackToWindowEdge: an input at the oldest accepted frame rolls
// back the whole window, and the result is what a lockstep run gives.
func TestRollbackToWindowEdge(t *testing.T) {
	for _, delay := range []int{0, 2} {
		cfg := Config[uint16]{Players: 2, Capacity: 8, InputDelay: delay}
		s := newWorld(t, cfg)
		w := 7 - delay
		for range 40 {
			require.NoError(t, s.AddLocalInput(0, 1))
			if s.Frame() >= rollnet.Frame(delay) && int(s.Frame()) < 40-w {
				require.NoError(t, s.AddRemoteInput(1, s.Frame(), 1))
			}
			if s.AdvanceFrame() != nil {
				break
			}
		}
		lo, _ := s.acceptWindow()
		require.Equal(t, s.ConfirmedFrame()+1, lo)
		require.NoError(t, s.AddRemoteInput(1, lo, 2))
		require.NoError(t, s.AddLocalInput(0, 1))
		step(t, s, 1)
		require.Equal(t, w, s.Stats().MaxRollbackDepth)

		// The lockstep oracle.
		var o world
		for f := range s.Frame() {
			in := []uint16{1, 1}
			if int(f) < delay {
				in = []uint16{0, 0}
			} else if f > lo {
				in[1] = 2 // predicted from frame lo
			} else if f == lo {
				in[1] = 2
			}
			simWorld(&o, in, f)
		}
		require.Equal(t, o, *s.State(), "delay %d", delay)
	}
}

func TestErrorsAreSentinels(t *testing.T) {
	for _, err := range []error{errConfig, ErrPlayer, ErrOutOfWindow, ErrConflict, ErrPredictionLimit, ErrNotConfirmed, ErrArgument, ErrMalformed} {
		require.Contains(t, err.Error(), "session")
	}
	require.True(t, errors.Is(&ConflictError{}, ErrConflict))
	require.ErrorIs(t, errConfig, rollnet.ErrConfig)
	d := &DesyncError{Frame: 3, Want: 1, Got: 2}
	require.Contains(t, d.Error(), "frame 3")
}

// Rebase starts the session over from a state and a frame: given the
// same inputs again, it reaches the same states as the session that
// never stopped, with the same frame numbers.
func TestRebase(t *testing.T) {
	sim := func(s *uint64, in []uint16, f rollnet.Frame) {
		*s = *s*31 + uint64(in[0])*7 + uint64(in[1]) + uint64(f)
	}
	a, err := New[uint64](Config[uint16]{Players: 2, InputDelay: 1, Capacity: 16}, sim)
	require.NoError(t, err)
	in := func(f rollnet.Frame, p int) uint16 { return uint16(int(f)*3 + p) }
	for a.Frame() < 30 {
		f := a.Frame() + 1
		require.NoError(t, a.AddLocalInput(0, in(f, 0)))
		require.NoError(t, a.AddRemoteInput(1, f, in(f, 1)))
		require.NoError(t, a.AdvanceFrame())
	}
	want, err := a.ChecksumAt(29)
	require.NoError(t, err)
	st, err := a.StateAt(20)
	require.NoError(t, err)
	at20 := *st

	b, err := New[uint64](Config[uint16]{Players: 2, InputDelay: 1, Capacity: 16}, sim)
	require.NoError(t, err)
	require.ErrorIs(t, b.Rebase(-2, &at20), ErrArgument)
	require.NoError(t, b.Rebase(20, &at20))
	require.Equal(t, rollnet.Frame(21), b.Frame())
	require.Equal(t, rollnet.Frame(20), b.ConfirmedFrame())
	got, err := b.ChecksumAt(20)
	require.NoError(t, err)
	sum20, _ := a.ChecksumAt(20)
	require.Equal(t, sum20, got)
	require.NoError(t, b.AddRemoteInput(0, 21, in(21, 0))) // a local player's input before Frame()+InputDelay, given again
	for b.Frame() < 30 {
		f := b.Frame() + 1
		require.NoError(t, b.AddLocalInput(0, in(f, 0)))
		require.NoError(t, b.AddRemoteInput(1, b.Frame(), in(b.Frame(), 1)))
		require.NoError(t, b.AddRemoteInput(1, f, in(f, 1)))
		require.NoError(t, b.AdvanceFrame())
	}
	got, err = b.ChecksumAt(29)
	require.NoError(t, err)
	require.Equal(t, want, got)
}
