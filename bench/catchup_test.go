package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/race"
)

// TestCatchUp runs the catch-up harness on a short match over loopback
// WebRTC: a fresh spectator replays it and agrees with its host on every
// frame it replayed, then a fresh session of player 1 on a fresh
// transport rejoins and agrees with player 0 from R on. The figures are logged, never asserted (go run ./bench
// measures the 36,000-frame match).
func TestCatchUp(t *testing.T) {
	cfg := catchConfig{Frames: 3600, FastRate: 4000, Quiet: time.Second, Live: 4, Rejoin: true, Timeout: 90 * time.Second}
	if race.Enabled || testing.Short() {
		// Gentler on a loaded machine: under -race the receiving side
		// drains pion's association about ten times slower.
		cfg.Frames, cfg.FastRate, cfg.Quiet = 600, 500, 500*time.Millisecond
	}
	rep, err := runCatchUp(cfg)
	require.NoError(t, err)
	require.Len(t, rep.Figures, 2)
	for _, f := range rep.Figures {
		if f.Kind == "spectator" {
			require.Greater(t, f.Compared, f.Frames, "%s", f.Kind)
		}
		t.Logf("%s: %d frames in %v (%.0f frames/s), connected in %v; feeding player's tick p50 %v -> %v, p99 %v -> %v",
			f.Kind, f.Frames, f.Live, f.Rate, f.Connect, f.Quiet.P50, f.Busy.P50, f.Quiet.P99, f.Busy.P99)
	}
	t.Logf("unpaced phase: %d frames in %v", cfg.Frames, rep.Played)
}
