package crossarch

import (
	"math"

	"github.com/rollnet/rollnet"
)

// MoteFloat is one body of a SwarmFloat.
type MoteFloat struct{ X, Y, VX, VY float64 }

// SwarmFloat is Swarm written with float64 the way floats are usually
// written, x*y + z, with math's Sin, Cos and Atan2: rollnet-vet flags it,
// and it diverges where Go fuses a multiply and an add into one FMA
// (arm64, riscv64, ppc64le, s390x).
type SwarmFloat struct {
	Ships   [2][2]float64
	Motes   [SwarmMotes]MoteFloat
	Bounces int32
	_       [4]byte
}

// SwarmFloat's constants: Swarm's, as floats.
const (
	floatBox    = 8.0
	floatStep   = 1.0 / 16
	floatDt     = 1.0 / 60
	floatPull   = 3.0
	floatSoft   = 0.25
	floatSwirl  = 1.0 / 3
	floatSway   = 0.5
	floatSpin   = 1.0 / 20
	floatDrag   = 1 - 1.0/128
	floatBounce = 0.9
)

// NewSwarmFloat returns Swarm's initial state, in floats.
func NewSwarmFloat() SwarmFloat {
	var s SwarmFloat
	s.Ships[0] = [2]float64{-4, 0}
	s.Ships[1] = [2]float64{4, 0}
	for i, m := range NewSwarm().Motes {
		s.Motes[i] = MoteFloat{X: m.Pos.X.Float64(), Y: m.Pos.Y.Float64()}
	}
	return s
}

// SimulateSwarmFloat advances a SwarmFloat one frame, as SimulateSwarm
// does a Swarm.
//
//rollnet:simulate
//rollnet:ok written x*y + z on purpose: TestCrossArchSwarmFloat requires it to diverge where Go fuses, and simvet's TestFlagsCrossArch requires rollnet-vet to flag it
func SimulateSwarmFloat(s *SwarmFloat, in []uint8, f rollnet.Frame) {
	for p := range s.Ships {
		dx, dy := steer(in[p])
		s.Ships[p][0] = max(-floatBox, min(floatBox, s.Ships[p][0]+float64(dx)*floatStep))
		s.Ships[p][1] = max(-floatBox, min(floatBox, s.Ships[p][1]+float64(dy)*floatStep))
	}
	phase := float64(f) * floatSpin
	for i := range s.Motes {
		m := &s.Motes[i]
		dx, dy := s.Ships[i&1][0]-m.X, s.Ships[i&1][1]-m.Y
		bearing := math.Atan2(dy, dx) + math.Pi/2*floatSwirl + math.Sin(phase+float64(i))*floatSway
		pull := floatPull / (math.Sqrt(dx*dx+dy*dy) + floatSoft)
		m.VX = (m.VX + pull*math.Cos(bearing)*floatDt) * floatDrag
		m.VY = (m.VY + pull*math.Sin(bearing)*floatDt) * floatDrag
		m.X += m.VX * floatDt
		m.Y += m.VY * floatDt
		s.Bounces += bounceFloat(&m.X, &m.VX) + bounceFloat(&m.Y, &m.VY)
	}
}

// bounceFloat is bounceFixed in floats.
func bounceFloat(x, v *float64) int32 {
	switch {
	case *x < -floatBox:
		*x = -2*floatBox - *x
	case *x > floatBox:
		*x = 2*floatBox - *x
	default:
		return 0
	}
	*v = -*v * floatBounce
	return 1
}
