package main

import (
	"fmt"
	"image/color"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"
	"github.com/hajimehoshi/ebiten/v2/vector"
)

// The colours, for the screenshot's check too.
var (
	Background = color.RGBA{0x14, 0x18, 0x20, 0xff}
	TargetRed  = color.RGBA{0xe0, 0x40, 0x40, 0xff}
	Crosshair  = color.RGBA{0xf0, 0xf0, 0x60, 0xff}
	Others     = color.RGBA{0x60, 0xa0, 0xf0, 0xff}
)

// Draw draws the targets where the window's player sees them (its sight:
// what its shots carry, and the host judges them against), the pointer's
// crosshair, and the hits seen and confirmed.
func (r *Room) Draw(screen *ebiten.Image) {
	screen.Fill(Background)
	if a, b, alpha, ok := r.you.Playout(); ok {
		for i := range a.T {
			x, y := Seen(a, b, alpha, i)
			vector.DrawFilledCircle(screen, float32(x), float32(y), Radius, TargetRed, true)
		}
	}
	x, y := ebiten.CursorPosition()
	if r.botSelf != nil {
		x, y = int(r.aim.X), int(r.aim.Y)
	}
	vector.StrokeLine(screen, float32(x-8), float32(y), float32(x+8), float32(y), 1, Crosshair, false)
	vector.StrokeLine(screen, float32(x), float32(y-8), float32(x), float32(y+8), 1, Crosshair, false)
	if r.aimAge < 20 { // the newest shot, fading out
		vector.StrokeCircle(screen, float32(r.aim.X), float32(r.aim.Y), 4+float32(r.aimAge), 1, Crosshair, true)
	}
	// Every player's hits, as this client's world has them (the host's,
	// corrected), along the bottom.
	me := r.you.Seat()
	w := r.you.State()
	for p := range len(r.bots) + 1 {
		c := Others
		if p == me {
			c = Crosshair
		}
		px := float32(20 + p*76)
		vector.DrawFilledRect(screen, px, Height-24, 12, 12, c, false)
		hits := int32(0)
		if w != nil {
			hits = w.Hits[p]
		}
		ebitenutil.DebugPrintAt(screen, fmt.Sprintf("%d", hits), int(px)+16, Height-27)
	}
	slot := max(me, 0)
	hw := r.host.State()
	confirmed := int32(0)
	if hw != nil {
		confirmed = hw.Hits[slot]
	}
	mode := "on"
	if !r.lagcomp {
		mode = "off"
	}
	ebitenutil.DebugPrint(screen, fmt.Sprintf("lag compensation %s, %d players: you saw %d hits, the host confirmed %d",
		mode, len(r.bots)+1, r.seen, confirmed))
	if r.stopAt > 0 && r.frames >= r.stopAt && !r.done {
		r.finish(screen)
	}
}
