package playout_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/playout"
)

// TestAllocs: every per-tick and per-frame call, refusals included, makes
// no allocation once constructed.
func TestAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	ts, err := playout.NewTimestep(playout.TimestepConfig{})
	require.NoError(t, err)
	sm, err := playout.NewSmoother(playout.SmootherConfig{})
	require.NoError(t, err)

	var sink float64
	for name, f := range map[string]func(){
		"Timestep": func() {
			sink += float64(ts.Advance(time.Second / 144))
			sink += ts.Alpha()
			_ = ts.SetScale(1.03)
			_ = ts.SetScale(0) // clamped
			sink += float64(ts.Advance(time.Hour))
		},
		"Timestep/refused": func() { _ = ts.SetScale(sink * 0 / 0) },
		"Smoother": func() {
			_ = sm.Correct(playout.Vec{1, 2, 3})
			sm.Advance(time.Second / 144)
			p := sm.Draw(playout.Vec{})
			sink += p[0]
			_ = sm.Correct(playout.Vec{sink * 0 / 0})
		},
	} {
		allocs.RequireZero(t, 100, f, name)
	}
	_ = sink
}
