//go:build !js

package main

import (
	"fmt"
	"image/color"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rollnet/rollnet/ebiten/internal/xvfbtest"
	"github.com/rollnet/rollnet/transport/local"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// requireSees checks a client's report: it holds the entities within its
// sight in the host's world (none missed), none far beyond it, and its
// own avatar's predictions agree with the host.
func requireSees(t *testing.T, name string, r Report) {
	t.Helper()
	require.GreaterOrEqual(t, r.Seat, 0, "%s has a seat", name)
	require.Greater(t, r.Held, 40, "%s holds the entities in its sight", name)
	require.Less(t, r.Held, 400, "%s holds only those in its sight", name)
	require.Zero(t, r.Far, "%s holds entities far beyond its sight", name)
	if r.Missed >= 0 {
		require.Zero(t, r.Missed, "%s misses entities in its sight", name)
	}
	require.Greater(t, r.Compared, uint64(100), "%s compared its predictions", name)
	require.GreaterOrEqual(t, r.Agreed, r.Compared*9/10, "%s: %d of %d predictions agreed", name, r.Agreed, r.Compared)
	require.Zero(t, r.Rebuilds, name)
}

// TestCrowdRoom plays the default mode's room without a window, on a
// manual clock: a host of 10,000 wanderers and 32 bots, 400 ticks. Each
// bot holds what it sees, and is sent at most its budget.
func TestCrowdRoom(t *testing.T) {
	clock := local.NewClock(time.Unix(1_700_000_000, 0))
	const bots, ticks = 32, 400
	r, err := NewRoom(bots, bots, clock.Now)
	require.NoError(t, err)
	defer r.Close()
	for range ticks {
		require.NoError(t, r.Tick())
		clock.Advance(time.Second / 60)
	}
	host := r.Host.State()
	for i, m := range r.Bots {
		rep := Measure(m, host)
		requireSees(t, fmt.Sprint("bot", i+1), rep)
		perSecond := float64(m.Stats().BytesReceived) / (ticks / 60.0)
		require.Less(t, perSecond, 16_000.0*1.1, "bot%d is sent its budget at most", i+1)
		if i == 0 {
			t.Logf("bot1: holds %d entities, %.0f B/s received; %s", rep.Held, perSecond, Predictions(m.Stats()))
		}
	}
	hs := r.Host.Stats()
	t.Logf("host: inputs %d late, %d too early, %d skipped; %d ticks held for want of one", hs.InputsLate, hs.InputsTooEarly, hs.InputsSkipped, hs.InputsHeld)
	require.Zero(t, hs.InputsTooEarly+hs.InputsSkipped, "no input refused or skipped")
}

// TestCrowdWindow plays the game as a person would: the program in a
// window on an X server (DISPLAY; xvfb-run -a provides one), a room of 31
// bots in its process, its own player a bot, 300 ticks; its report says
// it saw what it should, and its screenshot shows its avatar at the
// center and its sight around it.
func TestCrowdWindow(t *testing.T) {
	bin := xvfbtest.Build(t, "crowd")
	var rep Report
	line, shot := xvfbtest.Run(t, bin, 90*time.Second, &rep, "-bot", "-frames", "300")
	require.GreaterOrEqual(t, int(rep.Frame), 300) // the newest host tick: two may arrive in one
	t.Logf("the window's player: %d of %d predictions agreed, inputs %.1f ticks early, ticks at x%.3f", rep.Agreed, rep.Compared, rep.InputLead, rep.TimeScale)
	require.Equal(t, 31, rep.Bots, "every bot plays")
	requireSees(t, "the window's player", rep)
	t.Logf("report: %s", line)

	img := xvfbtest.Screenshot(t, shot)
	require.Equal(t, Width, img.Bounds().Dx())
	same := func(x, y int, want color.RGBA) bool {
		r, g, b, _ := img.At(x, y).RGBA()
		return uint8(r>>8) == want.R && uint8(g>>8) == want.G && uint8(b>>8) == want.B
	}
	require.True(t, same(Width/2, Height/2, Own), "the own avatar (white) at the center")
	ring := 0 // the sight ring (yellow, antialiased on the background) left, right, above and below the avatar
	for _, p := range [][2]int{{Width/2 + Sight, Height / 2}, {Width/2 - Sight, Height / 2}, {Width / 2, Height/2 + Sight}, {Width / 2, Height/2 - Sight}} {
	near:
		for dy := -2; dy <= 2; dy++ {
			for dx := -2; dx <= 2; dx++ {
				r, g, b, _ := img.At(p[0]+dx, p[1]+dy).RGBA()
				if r>>8 > b>>8+0x30 && g>>8 > b>>8+0x20 {
					ring++
					break near
				}
			}
		}
	}
	wanderers := 0
	for y := 0; y < Height-24; y++ {
		for x := 0; x < Width; x++ {
			if same(x, y, wanderer) {
				wanderers++
			}
		}
	}
	require.Greater(t, wanderers, 40*16/2, "wanderers drawn (4×4 pixels each)")
}
