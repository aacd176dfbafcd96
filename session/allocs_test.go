package session

import (
	"fmt"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/stretchr/testify/require"
)

func skipUnderRace(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
}

func TestAllocsStepAndInputs(t *testing.T) {
	skipUnderRace(t)
	s := newWorld(t, Config[uint16]{Players: 2, InputDelay: 2, Predict: func(_ int, last uint16, _ rollnet.Frame) uint16 { return last }})
	allocs := testing.AllocsPerRun(1000, func() {
		if err := s.AddLocalInput(0, uint16(s.Frame())); err != nil {
			panic(err)
		}
		if f := s.Frame() - 1; f >= 2 { // late: rolls back when it changes
			if err := s.AddRemoteInput(1, f, uint16(f/3)&3); err != nil {
				panic(err)
			}
		}
		if f := s.Frame() - 20; f >= 0 { // stale
			if err := s.AddRemoteInput(1, f, 1); err != nil {
				panic(err)
			}
		}
		if err := s.AdvanceFrame(); err != nil {
			panic(err)
		}
		if _, err := s.ChecksumAt(s.Frame() - 1); err != nil {
			panic(err)
		}
	})
	require.Zero(t, allocs)
	require.Positive(t, s.Stats().Rollbacks)
}

// TestAllocsRollbackAnyDepth: a rollback of every depth the window allows
// allocates nothing.
func TestAllocsRollbackAnyDepth(t *testing.T) {
	skipUnderRace(t)
	for d := 1; d <= 15; d++ {
		t.Run(fmt.Sprint(d), func(t *testing.T) {
			s := newRollbackBench(t, d)
			allocs := testing.AllocsPerRun(200, func() { s.step() })
			require.Zero(t, allocs)
			require.Equal(t, d, s.s.Stats().MaxRollbackDepth)
		})
	}
}

func TestAllocsSyncTestStep(t *testing.T) {
	skipUnderRace(t)
	st, err := NewSyncTest[world](SyncTestConfig[uint16]{Config: Config[uint16]{Players: 2}, CheckDistance: 7}, simWorld)
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(500, func() {
		_ = st.AddLocalInput(0, 1)
		_ = st.AddLocalInput(1, uint16(st.Frame()))
		if err := st.AdvanceFrame(); err != nil {
			panic(err)
		}
	})
	require.Zero(t, allocs)
}

func TestAllocsPackUnpack(t *testing.T) {
	skipUnderRace(t)
	a := newWorld(t, Config[uint16]{Players: 2, InputDelay: 2})
	b := newWorld(t, Config[uint16]{Players: 2, InputDelay: 2})
	buf := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(500, func() {
		_ = a.AddLocalInput(0, uint16(a.Frame()))
		_ = b.AddLocalInput(1, 3)
		pkt, err := a.PackInputs(buf[:0], a.Frame()+2, 4, 0b01)
		if err != nil {
			panic(err)
		}
		if err := b.UnpackInputs(pkt); err != nil {
			panic(err)
		}
		_ = a.AddRemoteInput(1, a.Frame()+2, 3)
		_ = a.AdvanceFrame()
		_ = b.AdvanceFrame()
	})
	require.Zero(t, allocs)
	require.Equal(t, a.ConfirmedFrame(), b.ConfirmedFrame())
}
