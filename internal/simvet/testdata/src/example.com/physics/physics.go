// Package physics is a simulation in the shape of a small 2D physics
// engine's step: integrators over vect's helpers, a sequential-impulse
// velocity solver, Box2D-style free functions. Its products fuse on arm64
// only once the helpers are inlined, where the source rule cannot see
// them: the compiler's own output finds them.
package physics

import (
	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"

	"example.com/vect"
)

type Body struct {
	P, V, F     vect.Vect
	W, T        float64
	InvMass, I  float64
	Torque, Ang float64
}

type Contact struct {
	A, B       int32
	RA, RB, N  vect.Vect
	Mass, Bias float64
	Impulse    float64
}

type Box struct {
	C, V vect.Vec2
	W    float64
}

type State struct {
	Bodies   [4]Body
	Contacts [4]Contact
	Boxes    [2]Box
	Energy   float64
}

const dt = 1.0 / 60

func Start() { // want Start:"hazards 8\\+"
	session.NewSyncTest[State](session.Config[uint8]{}, step)
}

func step(s *State, in []uint8, f rollnet.Frame) { // want step:"hazards 8\\+"
	for i := range s.Bodies {
		integrate(&s.Bodies[i])
	}
	solveVelocity(s)
	for i := range s.Boxes {
		box(&s.Boxes[i])
	}
	energy(s)
}

// integrate is a semi-implicit Euler step over Chipmunk-style methods.
func integrate(b *Body) { // want integrate:"hazards 4"
	b.V = b.F.Mult(b.InvMass * dt).Add(b.V)          // want `vect/vect.go:10: fused multiply-add: compiled for arm64, riscv64, vect.Vect.Add inlined into integrate here is one FMADDD .*the product is v.X \* s at example.com/vect/vect.go:14: write float64\(v.X \* s\).*\(reached through step → integrate\)`
	b.P = vect.Vect{b.V.X * dt, b.V.Y * dt}.Add(b.P) // want `vect/vect.go:10: fused multiply-add: .*the product is b.V.X \* dt at line 61: write float64\(b.V.X \* dt\)`
	p := b.W * dt
	b.Ang = vect.Sum(p, b.Ang)  // want `vect/vect.go:31: fused multiply-add: .*vect.Sum inlined into integrate here.*the product is b.W \* dt at line 62`
	b.W = b.W + b.Torque*b.I*dt // want `float multiply b.Torque \* b.I \* dt feeds`
}

// solveVelocity is a sequential-impulse solver's inner loop.
func solveVelocity(s *State) { // want solveVelocity:"hazards 8\\+"
	for i := range s.Contacts {
		c := &s.Contacts[i]
		a, b := &s.Bodies[c.A], &s.Bodies[c.B]
		dv := b.V.Add(c.RB.Perp().Mult(b.W)).Sub(a.V.Add(c.RA.Perp().Mult(a.W))) // want `vect/vect.go:10: fused multiply-add: .*v.X \* s` `vect/vect.go:10: fused multiply-add: .*v.X \* s`
		vn := dv.Dot(c.N)                                                        // want `vect/vect.go:21:44: float multiply v.X \* w.X` `vect/vect.go:21:54: float multiply v.Y \* w.Y`
		lambda := -c.Mass * (vn - c.Bias)
		imp := c.Impulse + lambda // want `lambda holds the float product`
		if imp < 0 {
			imp = 0
		}
		l := imp - c.Impulse
		c.Impulse = imp
		j := c.N.Mult(l)
		a.V = a.V.Sub(j.Mult(a.InvMass)) // want `vect/vect.go:12: fused multiply-add: compiled for arm64, riscv64, vect.Vect.Sub inlined into solveVelocity here is one FMSUBD .*v.X \* s`
		a.W -= a.I * c.RA.Cross(j)       // want `float multiply a.I \* c.RA.Cross\(j\) feeds` `vect/vect.go:23:46: float multiply` `vect/vect.go:23:56: float multiply`
		b.V = b.V.Add(j.Mult(b.InvMass)) // want `vect/vect.go:10: fused multiply-add: .*v.X \* s`
		b.W += b.I * c.RB.Cross(j)       // want `float multiply b.I \* c.RB.Cross\(j\) feeds`
	}
}

// box integrates with Box2D-style free functions.
func box(b *Box) { // want box:"hazards 2"
	b.C = vect.Add(b.C, vect.MulSV(dt, b.V))    // want `vect/vect.go:36: fused multiply-add: .*vect.Add inlined into box here.*the product is s \* v.X at example.com/vect/vect.go:38`
	b.V = vect.Add(b.V, vect.CrossSV(b.W, b.V)) // want `vect/vect.go:36: fused multiply-add: .*the product is -s \* v.Y at example.com/vect/vect.go:40`
}

// energy sums with products converted: nothing fuses.
func energy(s *State) {
	e := 0.0
	for i := range s.Bodies {
		b := &s.Bodies[i]
		e += float64(float64(b.V.X*b.V.X)+float64(b.V.Y*b.V.Y)) / b.InvMass
		e += float64(b.P.Lerp(b.V, 0.5).X * 2)
	}
	s.Energy = e
}

// unreached is never called by the simulation: its fused lines are not
// reported.
func unreached(b *Body) { // want unreached:"hazards 2"
	b.P = b.P.Add(b.V.Mult(2.5))
	b.W = b.W*b.T + b.Ang
}

var _ = unreached
