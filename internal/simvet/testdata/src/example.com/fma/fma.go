// Package fma has every shape of fusable multiply-add, and its fixes.
package fma

import (
	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/p2p"
)

type Meters float64

type S struct {
	A, B, C float64
	M       Meters
	F       float32
	_       [4]byte
}

func Start() { // want Start:"hazards 8\\+"
	var sim = func(s *S, in []uint8, f rollnet.Frame) {
		s.A = s.A*s.B + s.C     // want `float multiply s.A \* s.B feeds an add`
		s.A = s.C - s.A*s.B     // want `float multiply s.A \* s.B feeds an add`
		s.A = (s.A * s.B) - s.C // want `float multiply s.A \* s.B feeds an add`
		s.A = -s.A*s.B + s.C    // want `float multiply -s.A \* s.B feeds an add`
		s.A += s.B * s.C        // want `float multiply s.B \* s.C feeds an add`
		s.A -= s.B * s.C        // want `float multiply s.B \* s.C feeds an add`
		s.M = s.M*2 + s.M       // want `float multiply s.M \* 2 feeds an add.*write Meters\(s.M \* 2\)`
		s.F = s.F*s.F + 1       // want `write float32\(s.F \* s.F\)`
		p := s.A * s.B
		s.C = p + 1 // want `p holds the float product s.A \* s.B and feeds an add`
		q := float64(s.A * s.B)
		s.C = q + 1           // converted where assigned: fine
		s.C = s.A*s.B*s.C + 1 // want `float multiply s.A \* s.B \* s.C feeds an add`
		s.C = s.A/s.B + s.C   // a quotient is never fused
		s.C = float64(s.A*s.B) + float64(s.B*s.C)
	}
	p2p.New[S](p2p.Config[uint8]{}, nil, sim)
}
