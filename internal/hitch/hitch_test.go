package hitch_test

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet/internal/hitch"
	"github.com/stretchr/testify/require"
)

// TestHitches is the seed's smoothness test: 45 ± 20 ms with 5% loss, a
// 60 Hz step drawn at 144 Hz, packets delivered between update and draw.
// Paced, no view hitches; unpaced, the host entity drawn on the client does.
func TestHitches(t *testing.T) {
	paced, err := hitch.Run(hitch.Config{Seed: 1})
	require.NoError(t, err)
	unpaced, err := hitch.Run(hitch.Config{Seed: 1, Unpaced: true})
	require.NoError(t, err)

	t.Logf("45 ± 20 ms, 5%% loss, 60 Hz step, 144 Hz draw, %d drawn frames:", len(paced.Views[0].Moves))
	t.Logf("%-34s %16s %16s", "view", "paced", "on arrival")
	for v := range hitch.NumViews {
		p, u := paced.Views[v], unpaced.Views[v]
		t.Logf("%-34s %5d (worst %3.0f%%) %5d (worst %3.0f%%)", p.Name, p.Hitches, 100*p.Worst, u.Hitches, 100*u.Worst)
	}
	t.Logf("paced queue: %+v", paced.Queue)

	for v := range hitch.NumViews {
		require.GreaterOrEqual(t, len(paced.Views[v].Moves), 719)
		require.Zero(t, paced.Views[v].Hitches, paced.Views[v].Name)
	}
	require.Positive(t, unpaced.Views[hitch.Remote].Hitches, "on-arrival play must hitch, or the test proves nothing")

	// Not one lucky link: twenty more, paced, none may hitch, drawn at
	// 144 Hz and at 60 Hz (where a render delay of 2 frames, not the
	// default 3, hitched on a third of the links).
	for _, draw := range []time.Duration{time.Second / 144, time.Second / 60} {
		for seed := uint64(2); seed <= 21; seed++ {
			r, err := hitch.Run(hitch.Config{Seed: seed, Draw: draw})
			require.NoError(t, err)
			for _, v := range r.Views {
				require.Zero(t, v.Hitches, "seed %d, draw %v: %s", seed, draw, v.Name)
			}
		}
	}
}
