package fixed

import (
	"math"
	"testing"
)

// Each operation beside the float64 one it replaces, in the same run
// (go test -run '^$' -bench . ./fixed, or go run ./bench, which pairs
// BenchmarkX with BenchmarkXBaselineFloat64). The inputs change every
// iteration so nothing is hoisted, and the results go to a sink.

var (
	sinkF  F
	sinkFl float64
)

// inF and inFl are 256 values in [-8, 8), as F and as the same float64.
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

// benchF runs op on the i-th iteration, summing its results.
func benchF(b *testing.B, op func(i int) F) {
	b.ReportAllocs()
	var s F
	for i := 0; b.Loop(); i++ {
		s += op(i)
	}
	sinkF = s
}

// benchFloat is benchF for the float64 baseline.
func benchFloat(b *testing.B, op func(i int) float64) {
	b.ReportAllocs()
	var s float64
	for i := 0; b.Loop(); i++ {
		s += op(i)
	}
	sinkFl = s
}

func BenchmarkMul(b *testing.B) {
	benchF(b, func(i int) F { return inF[i&255].Mul(inF[(i+1)&255]) })
}

func BenchmarkMulBaselineFloat64(b *testing.B) {
	benchFloat(b, func(i int) float64 { return inFl[i&255] * inFl[(i+1)&255] })
}

func BenchmarkDiv(b *testing.B) {
	benchF(b, func(i int) F { return inF[i&255].Div(inF[(i+1)&255] | 1) })
}

func BenchmarkDivBaselineFloat64(b *testing.B) {
	benchFloat(b, func(i int) float64 { return inFl[i&255] / inFl[(i+1)&255] })
}

func BenchmarkSqrt(b *testing.B) {
	benchF(b, func(i int) F { return inF[i&255].Abs().Sqrt() })
}

func BenchmarkSqrtBaselineFloat64(b *testing.B) {
	benchFloat(b, func(i int) float64 { return math.Sqrt(math.Abs(inFl[i&255])) })
}

func BenchmarkSin(b *testing.B) {
	benchF(b, func(i int) F { return Sin(inF[i&255]) })
}

func BenchmarkSinBaselineFloat64(b *testing.B) {
	benchFloat(b, func(i int) float64 { return math.Sin(inFl[i&255]) })
}

func BenchmarkAtan2(b *testing.B) {
	benchF(b, func(i int) F { return Atan2(inF[i&255], inF[(i+7)&255]) })
}

func BenchmarkAtan2BaselineFloat64(b *testing.B) {
	benchFloat(b, func(i int) float64 { return math.Atan2(inFl[i&255], inFl[(i+7)&255]) })
}

func BenchmarkHypot(b *testing.B) {
	benchF(b, func(i int) F { return Hypot(inF[i&255], inF[(i+7)&255]) })
}

func BenchmarkHypotBaselineFloat64(b *testing.B) {
	benchFloat(b, func(i int) float64 { return math.Hypot(inFl[i&255], inFl[(i+7)&255]) })
}

// Rotate then Normalize: a vector's sin, cos, products, root and divides.
func BenchmarkRotateNormalize(b *testing.B) {
	v := V(One, Half)
	benchF(b, func(i int) F {
		v = v.Rotate(inF[i&255]).Normalize()
		return v.X
	})
}

func BenchmarkRotateNormalizeBaselineFloat64(b *testing.B) {
	x, y := 1.0, 0.5
	benchFloat(b, func(i int) float64 {
		s, c := math.Sincos(inFl[i&255])
		x, y = float64(x*c)-float64(y*s), float64(x*s)+float64(y*c)
		l := math.Hypot(x, y)
		x, y = x/l, y/l
		return x
	})
}
