package main

import (
	"fmt"
	"image/color"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"
	"github.com/hajimehoshi/ebiten/v2/vector"

	rollebiten "github.com/rollnet/rollnet/ebiten"
)

// The screen, in pixels (drawn at scale 1).
const (
	Width, Height = 640, 480
)

var (
	background = color.RGBA{0x12, 0x14, 0x1c, 0xff}
	lines      = color.RGBA{0x22, 0x26, 0x33, 0xff}
	wanderer   = color.RGBA{0x6a, 0x8c, 0xb0, 0xff}
	sightRing  = color.RGBA{0xe0, 0xc0, 0x40, 0xff}
	Own        = color.RGBA{0xff, 0xff, 0xff, 0xff}
)

// AvatarColor is the color of slot's avatar.
func AvatarColor(slot int) color.RGBA {
	h := uint32(slot)*0x9e3779b1 | 0x404040
	return color.RGBA{uint8(h>>16) | 0x80, uint8(h>>8) | 0x40, uint8(h) | 0x40, 0xff}
}

// Camera is the world point drawn at the screen's center: the player's
// avatar, or the world's center for a dedicated host.
func Camera(v *rollebiten.View[World]) (x, y float32, own bool) {
	w := v.Present
	if v.Seat >= 0 && v.Seat < MaxPlayers && w.Slots[v.Seat].Live {
		return float32(w.Mobs[v.Seat].X) / sub, float32(w.Mobs[v.Seat].Y) / sub, true
	}
	return Side / 2, Side / 2, false
}

// Draw draws what this process sees of the world around its avatar: the
// crowd, the other players' avatars, its own (white) and its sight.
func Draw(screen *ebiten.Image, v *rollebiten.View[World]) {
	screen.Fill(background)
	if v.Present == nil {
		return
	}
	w := v.Present
	cx, cy, own := Camera(v)
	ox, oy := Width/2-cx, Height/2-cy // screen = world + offset
	for g := float32(0); g <= Side; g += 100 {
		if x := g + ox; x >= 0 && x < Width {
			vector.StrokeLine(screen, x, max(0, oy), x, min(Height, Side+oy), 1, lines, false)
		}
		if y := g + oy; y >= 0 && y < Height {
			vector.StrokeLine(screen, max(0, ox), y, min(Width, Side+ox), y, 1, lines, false)
		}
	}
	held := 0
	for i := range w.Mobs {
		if !w.Slots[i].Live || i == v.Seat {
			continue
		}
		held++
		x, y := float32(w.Mobs[i].X)/sub+ox, float32(w.Mobs[i].Y)/sub+oy
		if x < -8 || y < -8 || x > Width+8 || y > Height+8 {
			continue
		}
		if i < MaxPlayers {
			vector.DrawFilledRect(screen, x-4, y-4, 8, 8, AvatarColor(i), false)
		} else {
			vector.DrawFilledRect(screen, x-2, y-2, 4, 4, wanderer, false)
		}
	}
	if own {
		vector.StrokeCircle(screen, Width/2, Height/2, Sight, 1, sightRing, true)
		vector.DrawFilledRect(screen, Width/2-5, Height/2-5, 10, 10, Own, false)
	}
	st := v.Status
	what := fmt.Sprintf("crowd: %d entities in the world; this process holds %d", Wanderers, held)
	if !own {
		what = fmt.Sprintf("crowd: %d entities (a dedicated host holds them all), frame %d", held, st.Frame)
	}
	ebitenutil.DebugPrintAt(screen, what, 8, Height-20)
}
