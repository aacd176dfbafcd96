package session

import (
	"errors"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/stretchr/testify/require"
)

func newSyncTest(t *testing.T, distance int, sim func(*world, []uint16, rollnet.Frame)) *SyncTest[world, uint16] {
	t.Helper()
	st, err := NewSyncTest[world](SyncTestConfig[uint16]{Config: Config[uint16]{Players: 2}, CheckDistance: distance}, sim)
	require.NoError(t, err)
	return st
}

// runSyncTest steps st up to frames times with scripted inputs and
// returns the first error.
func runSyncTest(st *SyncTest[world, uint16], frames int) error {
	for range frames {
		f := uint16(st.Frame())
		_ = st.AddLocalInput(0, f/7%3)
		_ = st.AddLocalInput(1, f/5%4)
		if err := st.AdvanceFrame(); err != nil {
			return err
		}
	}
	return nil
}

func TestSyncTestPassesDeterministicSimulation(t *testing.T) {
	for _, d := range []int{0, 1, 2, 7, 15} {
		st := newSyncTest(t, d, simWorld)
		require.NoError(t, runSyncTest(st, 300), "distance %d", d)
		if d == 0 {
			d = 2
		}
		require.Equal(t, d, st.checkDistance())
		// The sync test ends where a plain run ends.
		var o world
		for f := range rollnet.Frame(300) {
			simWorld(&o, []uint16{uint16(f) / 7 % 3, uint16(f) / 5 % 4}, f)
		}
		require.Equal(t, o, *st.State())
		sum, err := st.ChecksumAt(299)
		require.NoError(t, err)
		require.Equal(t, worldSum(&o), sum)
	}
}

func TestSyncTestConfig(t *testing.T) {
	for _, d := range []int{-1, 16, 100} {
		_, err := NewSyncTest[world](SyncTestConfig[uint16]{Config: Config[uint16]{Players: 2}, CheckDistance: d}, simWorld)
		require.ErrorIs(t, err, rollnet.ErrConfig, "distance %d", d)
	}
	_, err := NewSyncTest[world](SyncTestConfig[uint16]{Config: Config[uint16]{Players: 0}}, simWorld)
	require.ErrorIs(t, err, rollnet.ErrConfig)
}

// requireDesync runs sim under a sync test and requires a *DesyncError.
func requireDesync(t *testing.T, sim func(*world, []uint16, rollnet.Frame)) *DesyncError {
	t.Helper()
	st := newSyncTest(t, 0, sim)
	err := runSyncTest(st, 2000)
	var de *DesyncError
	require.True(t, errors.As(err, &de), "want a *DesyncError, got %v", err)
	require.NotEqual(t, de.Want, de.Got)
	require.Less(t, de.Frame, st.Frame())
	require.GreaterOrEqual(t, de.Frame, st.Frame()-2)
	return de
}

var syncTestCounter uint32

func TestSyncTestCatchesGlobalCounter(t *testing.T) {
	de := requireDesync(t, func(w *world, in []uint16, f rollnet.Frame) {
		syncTestCounter++
		w.Acc[0] += syncTestCounter
		simWorld(w, in, f)
	})
	require.Equal(t, rollnet.Frame(0), de.Frame, "caught on the first check")
}

func TestSyncTestCatchesMapRange(t *testing.T) {
	m := map[uint32]uint32{}
	for k := range uint32(16) {
		m[k] = k * 7
	}
	requireDesync(t, func(w *world, in []uint16, f rollnet.Frame) {
		for k, v := range m { // order-dependent: randomized per range
			w.Acc[1] = w.Acc[1]*31 + k ^ v
		}
		simWorld(w, in, f)
	})
}

func TestSyncTestCatchesWallClock(t *testing.T) {
	requireDesync(t, func(w *world, in []uint16, f rollnet.Frame) {
		w.Acc[2] ^= uint32(time.Now().UnixNano())
		simWorld(w, in, f)
	})
}

// TestSyncTestCatchesUninitializedRandReuse: a PRNG kept outside the
// state (not rolled back) is a desync too.
func TestSyncTestCatchesRandOutsideState(t *testing.T) {
	var r rollnet.Rand
	requireDesync(t, func(w *world, in []uint16, f rollnet.Frame) {
		w.Acc[3] += r.Uint32()
		simWorld(w, in, f)
	})
}
