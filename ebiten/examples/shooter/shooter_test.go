package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rollnet/rollnet/ebiten/internal/xvfbtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// run plays the game in a window, the window's player a bot, for 600
// frames; it returns the report and the screenshot's path.
func run(t *testing.T, bin string, args ...string) (Report, string) {
	var rep Report
	line, shot := xvfbtest.Run(t, bin, 90*time.Second, &rep, append([]string{"-bot", "-frames", "600"}, args...)...)
	t.Logf("report: %s", line)
	return rep, shot
}

// TestShooterWindow plays the game as a person would, with lag
// compensation and without: with it the host confirms the hits the
// window's player saw land; without it (the host judging its present)
// nearly none. The screenshot shows the four targets.
func TestShooterWindow(t *testing.T) {
	bin := xvfbtest.Build(t, "shooter")

	rep, shot := run(t, bin)
	require.True(t, rep.LagComp)
	require.Equal(t, 4, rep.Players)
	require.Greater(t, rep.Seen, int32(20))
	require.GreaterOrEqual(t, float64(rep.Confirmed), 0.9*float64(rep.Seen), "the hits seen, confirmed")

	img := xvfbtest.Screenshot(t, shot)
	require.Equal(t, Width, img.Bounds().Dx())
	red := 0
	for y := range Height {
		for x := range Width {
			r, g, b, _ := img.At(x, y).RGBA()
			if uint8(r>>8) == TargetRed.R && uint8(g>>8) == TargetRed.G && uint8(b>>8) == TargetRed.B {
				red++
			}
		}
	}
	require.Greater(t, red, Targets*300, "four targets drawn (about 450 pixels each)")

	off, _ := run(t, bin, "-lagcomp=false")
	require.False(t, off.LagComp)
	require.Greater(t, off.Seen, int32(20))
	require.Less(t, float64(off.Confirmed), 0.5*float64(off.Seen), "judged at the host's present, the hits seen miss")
}
