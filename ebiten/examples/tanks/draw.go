package main

import (
	"github.com/rollnet/rollnet/ebiten/examples/tanks/world"
	"image/color"
	"strconv"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"
	"github.com/hajimehoshi/ebiten/v2/vector"

	rollebiten "github.com/rollnet/rollnet/ebiten"
)

// The colors: the tests find each tank by its color at the position the
// state gives.
var (
	Background = color.RGBA{0x14, 0x18, 0x20, 0xff}
	Bar        = color.RGBA{0x30, 0x30, 0x38, 0xff}
	TankColors = [world.MaxTanks]color.RGBA{
		{0x30, 0xd0, 0x50, 0xff}, // green
		{0xe0, 0x80, 0x20, 0xff}, // orange
		{0xc0, 0x40, 0xe0, 0xff}, // violet
		{0x20, 0xa0, 0xe0, 0xff}, // blue
	}
	shellColor = color.RGBA{0xff, 0xff, 0xff, 0xff}
)

// scores holds the score texts, formatted only when a score changes.
var scores [world.MaxTanks]struct {
	n    int32
	text string
}

// Draw draws the arena. A player's own tank is drawn from the present
// (predicted, so it answers its keys at once); the others, and the
// shells, from the host's states around the render time, blended
// (v.A == v.B == v.Present in P2P).
func Draw(screen *ebiten.Image, v *rollebiten.View[world.World]) {
	screen.Fill(Background)
	vector.DrawFilledRect(screen, 0, world.ArenaH/world.Sub, 320, 240-world.ArenaH/world.Sub, Bar, false)
	if v.Present == nil || v.A == nil {
		return
	}
	a, b := v.A, v.B
	for s := range a.Shells {
		sa, sb := &a.Shells[s], &b.Shells[s]
		if sa.Life == 0 || sb.Life == 0 {
			continue
		}
		x, y := rollebiten.Lerp(sa.X, sb.X, v.Alpha)/world.Sub, rollebiten.Lerp(sa.Y, sb.Y, v.Alpha)/world.Sub
		vector.DrawFilledRect(screen, float32(x)-1, float32(y)-1, 3, 3, shellColor, false)
	}
	for i := range int(v.Present.Players) {
		x, y := TankAt(v, i)
		t := &v.Present.Tanks[i]
		drawTank(screen, float32(x), float32(y), t, TankColors[i])
		if scores[i].text == "" || scores[i].n != t.Score {
			scores[i].n, scores[i].text = t.Score, strconv.Itoa(int(t.Score))
		}
		vector.DrawFilledRect(screen, float32(8+i*40), world.ArenaH/world.Sub+8, 10, 10, TankColors[i], false)
		ebitenutil.DebugPrintAt(screen, scores[i].text, 8+i*40+14, world.ArenaH/world.Sub+5)
	}
}

// TankAt is where tank i is drawn, in screen pixels.
func TankAt(v *rollebiten.View[world.World], i int) (x, y float64) {
	if i == v.Seat {
		t := &v.Present.Tanks[i]
		return float64(t.X) / world.Sub, float64(t.Y) / world.Sub
	}
	ta, tb := &v.A.Tanks[i], &v.B.Tanks[i]
	return rollebiten.Lerp(ta.X, tb.X, v.Alpha) / world.Sub, rollebiten.Lerp(ta.Y, tb.Y, v.Alpha) / world.Sub
}

func drawTank(screen *ebiten.Image, x, y float32, t *world.Tank, c color.RGBA) {
	const h = world.TankHalf / world.Sub
	vector.DrawFilledRect(screen, x-h, y-h, 2*h, 2*h, c, false)
	d := world.Heading(t.Dir)
	dark := color.RGBA{c.R / 2, c.G / 2, c.B / 2, 0xff}
	vector.StrokeLine(screen, x+float32(d[0])*3/16, y+float32(d[1])*3/16, x+float32(d[0])*11/16, y+float32(d[1])*11/16, 3, dark, false)
	if t.Hit > 0 {
		vector.StrokeRect(screen, x-h, y-h, 2*h, 2*h, 2, shellColor, false)
	}
}
