package crossarch

import (
	"math"

	"github.com/rollnet/rollnet"
)

// Body is a point mass in Cloud.
type Body struct {
	X, Y, VX, VY float64
}

// Cloud is a float-heavy simulation: two ships steered by their players
// pull a cloud of particles that bounce off the walls of a unit box and
// off each other's wake. All of it is float64 arithmetic.
type Cloud struct {
	Ships [2]Body
	Dust  [24]Body
	Bumps int32 // wall bounces so far
	_     [4]byte
}

// The simulation's constants.
const (
	dt     = 1.0 / 60
	thrust = 0.35
	pull   = 0.002
	soft   = 0.01 // softening, so a close pass does not explode
	drag   = 0.999
)

// NewCloud returns the initial state: ships at the sides, dust on a
// spiral.
func NewCloud() Cloud {
	var c Cloud
	c.Ships[0] = Body{X: 0.2, Y: 0.5}
	c.Ships[1] = Body{X: 0.8, Y: 0.5}
	for i := range c.Dust {
		a := float64(i) * 0.7
		r := 0.1 + float64(i)*0.015
		// math.Cos and math.Sin may differ in the last bit between
		// architectures: fine here, the initial state is recorded.
		c.Dust[i] = Body{X: float64(r*math.Cos(a)) + 0.5, Y: float64(r*math.Sin(a)) + 0.5, VX: -0.05 * math.Sin(a), VY: 0.05 * math.Cos(a)}
	}
	return c
}

// MulAdd is x*y + z the way the session doc says to write it: the
// conversion forces the product's rounding, so no compiler fuses it.
func MulAdd(x, y, z float64) float64 { return float64(x*y) + z }

// MulAddFused is the same written plainly: Go may compute it as one fused
// multiply-add (one rounding), and does on arm64 and riscv64.
//
//rollnet:ok fused on purpose: TestCrossArchFusedDiverges requires it to diverge where Go fuses
func MulAddFused(x, y, z float64) float64 { return x*y + z }

// SimulateCloud returns a Cloud simulation whose integration steps use
// madd (MulAdd by the rules, MulAddFused to show why they exist). Every
// other expression is written by the rules. Inputs: bit 0 up, bit 1 down,
// bit 2 left, bit 3 right.
//
//rollnet:simulate
func SimulateCloud(madd func(x, y, z float64) float64) func(*Cloud, []uint8, rollnet.Frame) {
	return func(c *Cloud, in []uint8, _ rollnet.Frame) {
		for p := range c.Ships {
			s := &c.Ships[p]
			var ax, ay float64
			b := in[p]
			if b&1 != 0 {
				ay -= thrust
			}
			if b&2 != 0 {
				ay += thrust
			}
			if b&4 != 0 {
				ax -= thrust
			}
			if b&8 != 0 {
				ax += thrust
			}
			s.VX = madd(ax, dt, s.VX) * drag
			s.VY = madd(ay, dt, s.VY) * drag
			s.X = madd(s.VX, dt, s.X)
			s.Y = madd(s.VY, dt, s.Y)
			c.bounce(s)
		}
		for i := range c.Dust {
			d := &c.Dust[i]
			for p := range c.Ships {
				dx, dy := c.Ships[p].X-d.X, c.Ships[p].Y-d.Y
				r2 := float64(dx*dx) + float64(dy*dy) + soft
				k := pull / (r2 * math.Sqrt(r2))
				d.VX = madd(dx, k, d.VX)
				d.VY = madd(dy, k, d.VY)
			}
			d.X = madd(d.VX, dt, d.X)
			d.Y = madd(d.VY, dt, d.Y)
			c.bounce(d)
		}
	}
}

// bounce reflects b off the walls of the unit box.
func (c *Cloud) bounce(b *Body) {
	c.Bumps += wall(&b.X, &b.VX) + wall(&b.Y, &b.VY)
}

// wall reflects a position on one axis (and its velocity, losing a tenth)
// off 0 and 1, and returns 1 if it bounced.
func wall(x, v *float64) int32 {
	switch {
	case *x < 0:
		*x = -*x
	case *x > 1:
		*x = 2 - *x
	default:
		return 0
	}
	*v = -*v * 0.9
	return 1
}

// Pilots steers the ships of Cloud and Swarm with a script of the frame
// number: bursts of thrust that change every few dozen frames.
func Pilots[S any](_ *S, f rollnet.Frame, in []uint8) {
	for p := range in {
		h := uint32(f/23+rollnet.Frame(p)*7) * 0x9e3779b1
		in[p] = uint8(h>>28) & 0x0f
	}
}
