package main

import (
	"encoding/binary"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority/entity"
	"github.com/rollnet/rollnet/netplay"
)

// The world: positions are integers in sixteenths of a pixel, so the
// host's simulation is exact; the wire carries quarter pixels.
const (
	MaxPlayers = 64                     // avatars are the first entities: index = slot
	Wanderers  = 10000                  // the crowd
	Capacity   = MaxPlayers + Wanderers // the entity table
	Side       = 3200                   // the world is Side×Side pixels
	Sight      = 180                    // a player sees this far (pixels)
	sub        = 16                     // sixteenths of a pixel
	quant      = 4                      // the wire's step: a quarter pixel
	speed      = 2 * sub                // an avatar's step per tick
	size       = 4                      // an entity's wire encoding: X and Y, 16 bits each
)

// Buttons is a player's input: the directions held.
type Buttons uint8

const (
	Up Buttons = 1 << iota
	Down
	Left
	Right
)

// Mob is one entity: an avatar (index below MaxPlayers) or a wanderer.
type Mob struct {
	X, Y   int32 // sixteenths of a pixel
	VX, VY int16 // a wanderer's velocity, sixteenths a tick
}

// World is the game's state: the entity table and the entities beside it.
// On a client it holds what it sees.
type World struct {
	Slots [Capacity]entity.Slot
	Mobs  [Capacity]Mob
	Tick  uint32
}

// Simulate is the host's step: the first one places the players' avatars
// and the crowd; then avatars move by their inputs and wanderers bounce
// about the world.
func Simulate(w *World, in []Buttons, _ rollnet.Frame) {
	if w.Tick == 0 {
		for p := range min(len(in), MaxPlayers) {
			w.Slots[p].Live = true
			w.Mobs[p] = Mob{X: int32(Side/2+60*(p%8-4)) * sub, Y: int32(Side/2+60*(p/8-4)) * sub}
		}
		seed := uint32(1)
		for i := MaxPlayers; i < Capacity; i++ {
			r := func(n uint32) int32 { seed = seed*1664525 + 1013904223; return int32((seed >> 8) % n) }
			w.Slots[i].Live = true
			w.Mobs[i] = Mob{X: r(Side * sub), Y: r(Side * sub), VX: int16(r(49) - 24), VY: int16(r(49) - 24)}
		}
	}
	w.Tick++
	for p, b := range in[:min(len(in), MaxPlayers)] {
		Move(&w.Mobs[p], b)
	}
	for i := MaxPlayers; i < Capacity; i++ {
		m := &w.Mobs[i]
		m.X, m.Y = m.X+int32(m.VX), m.Y+int32(m.VY)
		if m.X < 0 || m.X >= Side*sub {
			m.VX = -m.VX
			m.X = max(0, min(m.X, Side*sub-1))
		}
		if m.Y < 0 || m.Y >= Side*sub {
			m.VY = -m.VY
			m.Y = max(0, min(m.Y, Side*sub-1))
		}
	}
}

// Move steps an avatar by one tick of its input: the host's rule and the
// client's prediction, one function. Avatars stay on whole quarter
// pixels, so what a client decodes from the wire is exactly the host's.
func Move(m *Mob, b Buttons) {
	if b&Left != 0 {
		m.X -= speed
	}
	if b&Right != 0 {
		m.X += speed
	}
	if b&Up != 0 {
		m.Y -= speed
	}
	if b&Down != 0 {
		m.Y += speed
	}
	m.X = max(0, min(m.X, (Side-1)*sub))
	m.Y = max(0, min(m.Y, (Side-1)*sub))
}

// sight is the host's spatial grid, rebuilt once a tick on the first
// question about that tick (only the host asks).
type sight struct {
	grid *entity.Grid
	tick uint32
}

// Entities is the entity mode of the game: a player sees the entities
// within Sight of its avatar, through a grid of Sight-wide cells.
func Entities() *netplay.EntityConfig[World, Buttons] {
	s := &sight{grid: entity.NewGrid(Sight, Capacity)}
	return &netplay.EntityConfig[World, Buttons]{
		Capacity: Capacity, Size: size,
		Slots:    func(w *World) []entity.Slot { return w.Slots[:] },
		Encode:   Encode,
		Decode:   Decode,
		Interest: s.near,
		Own: func(w *World, slot int) int {
			if slot < MaxPlayers && w.Slots[slot].Live {
				return slot
			}
			return -1
		},
		Predict: func(w *World, _, i int, b Buttons) { Move(&w.Mobs[i], b) },
	}
}

func (s *sight) near(w *World, slot int, dst []int32) []int32 {
	if slot >= MaxPlayers || !w.Slots[slot].Live {
		return dst
	}
	if s.tick != w.Tick {
		s.tick = w.Tick
		s.grid.Clear()
		for i := range w.Mobs {
			if w.Slots[i].Live {
				s.grid.Insert(i, float32(w.Mobs[i].X)/sub, float32(w.Mobs[i].Y)/sub)
			}
		}
	}
	me := &w.Mobs[slot]
	return s.grid.AppendNear(dst, float32(me.X)/sub, float32(me.Y)/sub, Sight)
}

// Encode is the wire's quantization: X and Y in quarter pixels.
func Encode(w *World, dst []byte, i int) {
	binary.LittleEndian.PutUint16(dst, uint16(w.Mobs[i].X/quant))
	binary.LittleEndian.PutUint16(dst[2:], uint16(w.Mobs[i].Y/quant))
}

// Decode sets entity i of a client's world at a + alpha×(b−a).
func Decode(w *World, i int, a, b []byte, alpha float32) {
	at := func(k int) int32 {
		x, y := int32(binary.LittleEndian.Uint16(a[k:])), int32(binary.LittleEndian.Uint16(b[k:]))
		return (x + int32(alpha*float32(y-x))) * quant
	}
	w.Mobs[i].X, w.Mobs[i].Y = at(0), at(2)
}

// Bot is a player that walks by itself, turning every 40 to 100 ticks.
type Bot struct {
	seed uint32
	left int
	b    Buttons
}

// NewBot returns a bot of its own course.
func NewBot(seed uint32) *Bot { return &Bot{seed: seed*2654435761 | 1} }

// Input is the bot's input for the next tick.
func (b *Bot) Input() Buttons {
	if b.left--; b.left <= 0 {
		b.seed ^= b.seed << 13
		b.seed ^= b.seed >> 17
		b.seed ^= b.seed << 5
		b.left = 40 + int(b.seed>>8)%60
		b.b = [8]Buttons{Up, Down, Left, Right, Up | Left, Up | Right, Down | Left, Down | Right}[b.seed%8]
	}
	return b.b
}
