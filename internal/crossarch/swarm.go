package crossarch

import (
	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/fixed"
)

// SwarmMotes is how many bodies a Swarm moves.
const SwarmMotes = 320

// Mote is one body of a Swarm.
type Mote struct{ Pos, Vel fixed.Vec2 }

// Swarm is a trigonometry-heavy simulation written with package fixed:
// SwarmMotes bodies orbit the two ships the players steer, each pulled
// toward a bearing ahead of its ship's (Atan2), swaying with its own
// phase (Sin), its pull turned into a vector (Rotate: Sin and Cos) and
// fading with distance (Hypot, Div), bouncing off the walls of a box.
// Integer arithmetic only, so every architecture computes the same bits.
type Swarm struct {
	Ships   [2]fixed.Vec2
	Motes   [SwarmMotes]Mote
	Bounces int32 // wall bounces so far
	_       [4]byte
}

// Swarm's constants.
const (
	swarmBox    = 8 * fixed.One  // the box is [-8, 8]²
	swarmStep   = fixed.One / 16 // a ship's move per frame
	swarmDt     = fixed.One / 60 // seconds per frame
	swarmPull   = 3 * fixed.One  // pull at distance 1
	swarmSoft   = fixed.One / 4  // softening of the pull near a ship
	swarmSwirl  = fixed.One / 3  // bearing ahead of the ship's, in quarter turns
	swarmSway   = fixed.One / 2  // amplitude of the sway, radians
	swarmSpin   = fixed.One / 20 // the sway's phase, radians per frame
	swarmDrag   = fixed.One - fixed.One/128
	swarmBounce = fixed.One * 9 / 10
)

// NewSwarm returns the initial state: ships left and right, motes on a
// spiral between them.
func NewSwarm() Swarm {
	var s Swarm
	s.Ships[0] = fixed.V(-4*fixed.One, 0)
	s.Ships[1] = fixed.V(4*fixed.One, 0)
	for i := range s.Motes {
		a := fixed.FromInt(int32(i)).Mul(fixed.Ratio(7, 10))
		r := fixed.One + fixed.FromInt(int32(i)).Mul(fixed.Ratio(2, 100))
		sin, cos := fixed.SinCos(a)
		s.Motes[i].Pos = fixed.V(r.Mul(cos), r.Mul(sin))
	}
	return s
}

// SimulateSwarm advances a Swarm one frame. Inputs: bit 0 up, bit 1 down,
// bit 2 left, bit 3 right.
//
//rollnet:simulate
func SimulateSwarm(s *Swarm, in []uint8, f rollnet.Frame) {
	for p := range s.Ships {
		dx, dy := steer(in[p])
		s.Ships[p] = s.Ships[p].Add(fixed.V(swarmStep*fixed.F(dx), swarmStep*fixed.F(dy)))
		s.Ships[p].X = clamp(s.Ships[p].X, swarmBox)
		s.Ships[p].Y = clamp(s.Ships[p].Y, swarmBox)
	}
	phase := fixed.FromInt(int32(f)).Mul(swarmSpin)
	for i := range s.Motes {
		m := &s.Motes[i]
		to := s.Ships[i&1].Sub(m.Pos)
		bearing := to.Angle() + fixed.HalfPi.Mul(swarmSwirl) + fixed.Sin(phase+fixed.FromInt(int32(i))).Mul(swarmSway)
		pull := swarmPull.Div(to.Len() + swarmSoft)
		m.Vel = m.Vel.Add(fixed.V(pull, 0).Rotate(bearing).Scale(swarmDt)).Scale(swarmDrag)
		m.Pos = m.Pos.Add(m.Vel.Scale(swarmDt))
		s.Bounces += bounceFixed(&m.Pos.X, &m.Vel.X) + bounceFixed(&m.Pos.Y, &m.Vel.Y)
	}
}

// steer returns the direction the input bits ask for, -1, 0 or 1 on each
// axis.
func steer(b uint8) (dx, dy int32) {
	if b&1 != 0 {
		dy--
	}
	if b&2 != 0 {
		dy++
	}
	if b&4 != 0 {
		dx--
	}
	if b&8 != 0 {
		dx++
	}
	return dx, dy
}

// clamp returns x within [-box, box].
func clamp(x, box fixed.F) fixed.F { return max(-box, min(box, x)) }

// bounceFixed reflects a position on one axis (and its velocity, losing a
// tenth) off the box's walls, and returns 1 if it bounced.
func bounceFixed(x, v *fixed.F) int32 {
	switch {
	case *x < -swarmBox:
		*x = -2*swarmBox - *x
	case *x > swarmBox:
		*x = 2*swarmBox - *x
	default:
		return 0
	}
	*v = -v.Mul(swarmBounce)
	return 1
}
