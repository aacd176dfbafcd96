package fixed

import (
	"math"
	"testing"
)

// Each operation beside the float64 one it replaces, in the same run:
// go test -run '^$' -bench . ./fixed. The inputs change every iteration
// so nothing is hoisted, and the results go to a sink.

var (
	sinkF  F
	sinkV  Vec2
	sinkFl float64
)

// inputs are 256 values in [-8, 8), as F and as float64.
var (
	inF  [256]F
	inFl [256]float64
)

func init() {
	for i := range inF {
		inF[i] = F(int64(i)*0x10000000) - FromInt(8) + F(i*7919)
		inFl[i] = inF[i].Float64()
	}
}

func BenchmarkMul(b *testing.B) {
	b.Run("fixed", func(b *testing.B) {
		b.ReportAllocs()
		var s F
		for i := 0; b.Loop(); i++ {
			s += inF[i&255].Mul(inF[(i+1)&255])
		}
		sinkF = s
	})
	b.Run("float64", func(b *testing.B) {
		b.ReportAllocs()
		var s float64
		for i := 0; b.Loop(); i++ {
			s += float64(inFl[i&255] * inFl[(i+1)&255])
		}
		sinkFl = s
	})
}

func BenchmarkDiv(b *testing.B) {
	b.Run("fixed", func(b *testing.B) {
		b.ReportAllocs()
		var s F
		for i := 0; b.Loop(); i++ {
			s += inF[i&255].Div(inF[(i+1)&255] | 1)
		}
		sinkF = s
	})
	b.Run("float64", func(b *testing.B) {
		b.ReportAllocs()
		var s float64
		for i := 0; b.Loop(); i++ {
			s += inFl[i&255] / inFl[(i+1)&255]
		}
		sinkFl = s
	})
}

func BenchmarkSqrt(b *testing.B) {
	b.Run("fixed", func(b *testing.B) {
		b.ReportAllocs()
		var s F
		for i := 0; b.Loop(); i++ {
			s += inF[i&255].Abs().Sqrt()
		}
		sinkF = s
	})
	b.Run("float64", func(b *testing.B) {
		b.ReportAllocs()
		var s float64
		for i := 0; b.Loop(); i++ {
			s += math.Sqrt(math.Abs(inFl[i&255]))
		}
		sinkFl = s
	})
}

func BenchmarkSin(b *testing.B) {
	b.Run("fixed", func(b *testing.B) {
		b.ReportAllocs()
		var s F
		for i := 0; b.Loop(); i++ {
			s += Sin(inF[i&255])
		}
		sinkF = s
	})
	b.Run("float64", func(b *testing.B) {
		b.ReportAllocs()
		var s float64
		for i := 0; b.Loop(); i++ {
			s += math.Sin(inFl[i&255])
		}
		sinkFl = s
	})
}

func BenchmarkAtan2(b *testing.B) {
	b.Run("fixed", func(b *testing.B) {
		b.ReportAllocs()
		var s F
		for i := 0; b.Loop(); i++ {
			s += Atan2(inF[i&255], inF[(i+7)&255])
		}
		sinkF = s
	})
	b.Run("float64", func(b *testing.B) {
		b.ReportAllocs()
		var s float64
		for i := 0; b.Loop(); i++ {
			s += math.Atan2(inFl[i&255], inFl[(i+7)&255])
		}
		sinkFl = s
	})
}

func BenchmarkHypot(b *testing.B) {
	b.Run("fixed", func(b *testing.B) {
		b.ReportAllocs()
		var s F
		for i := 0; b.Loop(); i++ {
			s += Hypot(inF[i&255], inF[(i+7)&255])
		}
		sinkF = s
	})
	b.Run("float64", func(b *testing.B) {
		b.ReportAllocs()
		var s float64
		for i := 0; b.Loop(); i++ {
			s += math.Hypot(inFl[i&255], inFl[(i+7)&255])
		}
		sinkFl = s
	})
}

// Rotate and Normalize: a vector's sin, cos, products, root and divides.
func BenchmarkVec2RotateNormalize(b *testing.B) {
	b.Run("fixed", func(b *testing.B) {
		b.ReportAllocs()
		v := V(One, Half)
		for i := 0; b.Loop(); i++ {
			v = v.Rotate(inF[i&255]).Normalize()
		}
		sinkV = v
	})
	b.Run("float64", func(b *testing.B) {
		b.ReportAllocs()
		x, y := 1.0, 0.5
		for i := 0; b.Loop(); i++ {
			s, c := math.Sincos(inFl[i&255])
			x, y = float64(x*c)-float64(y*s), float64(x*s)+float64(y*c)
			l := math.Hypot(x, y)
			x, y = x/l, y/l
		}
		sinkFl = x + y
	})
}
