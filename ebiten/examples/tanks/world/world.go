// Package world is the tanks example's simulation, apart from its window so
// that it builds for every architecture: cmd/rollnet-check replays its
// recordings on 386, arm64 and riscv64 (world_test.go's TestShipCheck).
package world

import "github.com/rollnet/rollnet"

// The arena, in sub-pixels (16 to a pixel): the screen above the score
// bar. Every number of the simulation is an int32: integer physics is the
// same on every machine, so peers agree bit for bit.
const (
	Sub       = 16
	ArenaW    = 320 * Sub
	ArenaH    = 192 * Sub
	MaxTanks  = 4
	MaxShells = 32

	TankHalf   = 7 * Sub  // a tank is 14×14 pixels: its half width
	tankSpeed  = 24       // 1.5 px a frame
	shellSpeed = 64       // 4 px a frame
	shellLife  = 90       // frames
	reload     = 18       // frames between shots
	knock      = 3        // a hit pushes the tank by knock × the shell's speed, decaying
	muzzle     = 10 * Sub // shells start this far from the tank's center
)

// Buttons is one player's input: a bit set.
type Buttons uint8

const (
	Up Buttons = 1 << iota
	Down
	Left
	Right
	Fire
)

// Tank is one player's tank.
type Tank struct {
	X, Y   int32 // center, sub-pixels
	VX, VY int32 // knock-back from hits, decaying
	Dir    int32 // 0..7: east, south-east, south, ... (clockwise)
	Cool   int32 // frames until it can fire
	Hit    int32 // frames of the hit flash
	Score  int32
}

// Shell is a shot in flight (Life 0: a free slot).
type Shell struct {
	X, Y, VX, VY int32
	Life, Owner  int32
}

// World is the whole game state: pointer-free and gap-free, as rollnet's
// state must be.
type World struct {
	Tanks   [MaxTanks]Tank
	Shells  [MaxShells]Shell
	Players int32
	Frame   int32
}

// Heading is direction d's unit step, ×16 (cos and sin rounded): d 0
// is east and each next one 45° clockwise.
func Heading(d int32) [2]int32 { return dirs[d&7] }

// dirs are the eight directions' unit steps, ×16 (cos and sin rounded).
var dirs = [8][2]int32{{16, 0}, {11, 11}, {0, 16}, {-11, 11}, {-16, 0}, {-11, -11}, {0, -16}, {11, -11}}

// NewWorld is the start: players tanks around the arena's center.
func NewWorld(players int) World {
	w := World{Players: int32(players)}
	starts := [MaxTanks][3]int32{{40, 96, 0}, {280, 96, 4}, {160, 30, 2}, {160, 162, 6}}
	for i := range players {
		w.Tanks[i] = Tank{X: starts[i][0] * Sub, Y: starts[i][1] * Sub, Dir: starts[i][2]}
	}
	return w
}

// Simulate advances the world by one frame from every player's buttons.
func Simulate(w *World, in []Buttons, _ rollnet.Frame) {
	for i := range min(len(in), int(w.Players)) {
		w.Tanks[i].drive(in[i], int32(i), w)
	}
	for s := range w.Shells {
		w.Shells[s].fly(w)
	}
	w.push()
	w.Frame++
}

func (t *Tank) drive(b Buttons, me int32, w *World) {
	var dx, dy int32
	if b&Left != 0 {
		dx--
	}
	if b&Right != 0 {
		dx++
	}
	if b&Up != 0 {
		dy--
	}
	if b&Down != 0 {
		dy++
	}
	if dx != 0 || dy != 0 {
		for d, v := range dirs {
			if sign(v[0]) == dx && sign(v[1]) == dy {
				t.Dir = int32(d)
			}
		}
		t.X += dx * tankSpeed
		t.Y += dy * tankSpeed
	}
	t.X += t.VX
	t.Y += t.VY
	t.VX -= t.VX / 8
	t.VY -= t.VY / 8
	t.X = clamp(t.X, TankHalf, ArenaW-TankHalf)
	t.Y = clamp(t.Y, TankHalf, ArenaH-TankHalf)
	t.Cool = max(t.Cool-1, 0)
	t.Hit = max(t.Hit-1, 0)
	if b&Fire != 0 && t.Cool == 0 {
		t.Cool = reload
		for s := range w.Shells {
			if w.Shells[s].Life == 0 {
				d := dirs[t.Dir]
				w.Shells[s] = Shell{
					X: t.X + d[0]*muzzle/16, Y: t.Y + d[1]*muzzle/16,
					VX: d[0] * shellSpeed / 16, VY: d[1] * shellSpeed / 16,
					Life: shellLife, Owner: me,
				}
				break
			}
		}
	}
}

func (s *Shell) fly(w *World) {
	if s.Life == 0 {
		return
	}
	s.X += s.VX
	s.Y += s.VY
	s.Life--
	if s.X < 0 || s.X >= ArenaW || s.Y < 0 || s.Y >= ArenaH {
		s.Life = 0
		return
	}
	for i := range w.Players {
		t := &w.Tanks[i]
		if i != s.Owner && abs(s.X-t.X) < TankHalf && abs(s.Y-t.Y) < TankHalf {
			t.VX += s.VX * knock / 2
			t.VY += s.VY * knock / 2
			t.Hit = 10
			w.Tanks[s.Owner].Score++
			s.Life = 0
			return
		}
	}
}

// push separates overlapping tanks along the axis they overlap least.
func (w *World) push() {
	for i := range w.Players {
		for j := i + 1; j < w.Players; j++ {
			a, b := &w.Tanks[i], &w.Tanks[j]
			dx, dy := b.X-a.X, b.Y-a.Y
			ox, oy := 2*TankHalf-abs(dx), 2*TankHalf-abs(dy)
			if ox <= 0 || oy <= 0 {
				continue
			}
			if ox < oy {
				a.X -= sign(dx|1) * (ox / 2)
				b.X += sign(dx|1) * (ox - ox/2)
			} else {
				a.Y -= sign(dy|1) * (oy / 2)
				b.Y += sign(dy|1) * (oy - oy/2)
			}
		}
	}
}

func sign(v int32) int32 {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}

func abs(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

func clamp(v, lo, hi int32) int32 { return min(max(v, lo), hi) }
