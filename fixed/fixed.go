package fixed

import (
	"math"
	"math/bits"
)

// F is a Q32.32 fixed-point number: the real number F/2³², in
// [-2³¹, 2³¹-2⁻³²] with a resolution (one ulp) of 2⁻³² ≈ 2.3e-10. Its
// zero value is 0. + and - on F are exact while the result is in range
// and wrap (two's complement) when it is not, like Go's int64; Add and Sub
// saturate instead.
type F int64

// Constants, each the nearest F to its value.
const (
	One    F = 1 << 32
	Half   F = 1 << 31
	Max    F = math.MaxInt64 // 2³¹ - 2⁻³²
	Min    F = math.MinInt64 // -2³¹
	Pi     F = 0x3243f6a89
	TwoPi  F = 0x6487ed511
	HalfPi F = 0x1921fb544
)

// FromInt returns n as an F (exact).
func FromInt(n int32) F { return F(int64(n) << 32) }

// Ratio returns num/den rounded to nearest (as Div).
func Ratio(num, den int32) F { return FromInt(num).Div(FromInt(den)) }

// FromRaw returns the F whose bits are raw (raw/2³²).
func FromRaw(raw int64) F { return F(raw) }

// Raw returns f's bits: f is Raw()/2³².
func (f F) Raw() int64 { return int64(f) }

// Floor returns the greatest integer not above f.
func (f F) Floor() int32 { return int32(f >> 32) }

// Ceil returns the least integer not below f, saturating at
// math.MaxInt32 for f above it.
func (f F) Ceil() int32 {
	if f > FromInt(math.MaxInt32) {
		return math.MaxInt32
	}
	return int32((f + One - 1) >> 32)
}

// Int returns f truncated toward zero, like Go's float-to-int conversion.
func (f F) Int() int32 {
	if f < 0 && f&(One-1) != 0 {
		return f.Floor() + 1
	}
	return f.Floor()
}

// Round returns f rounded to the nearest integer, halves away from zero,
// saturating at math.MaxInt32 for f at or above 2³¹-½.
func (f F) Round() int32 {
	if f < 0 {
		return int32(-int64((uint64(-f) + 1<<31) >> 32))
	}
	r := (uint64(f) + 1<<31) >> 32
	if r > math.MaxInt32 {
		return math.MaxInt32
	}
	return int32(r)
}

// FromFloat64 returns the F nearest v (halves away from zero), saturating
// at Min and Max; NaN is 0. Meant for constants and for reading
// configuration: the conversion is exact IEEE arithmetic, the same on
// every architecture, but a simulation should not compute in float64.
func FromFloat64(v float64) F {
	switch {
	case v != v:
		return 0
	case v >= 1<<31:
		return Max
	case v <= -(1 << 31):
		return Min
	}
	return F(math.Round(v * (1 << 32)))
}

// Float64 returns f as a float64 (rounded to nearest even where f has
// more than 53 significant bits): for display, not for the simulation.
func (f F) Float64() float64 { return float64(f) / (1 << 32) }

// Abs returns |f|, saturating: Abs(Min) is Max.
func (f F) Abs() F {
	if f >= 0 {
		return f
	}
	if f == Min {
		return Max
	}
	return -f
}

// Add returns f+g, saturating at Min and Max instead of wrapping.
func (f F) Add(g F) F {
	s := f + g
	if (f >= 0) == (g >= 0) && (s >= 0) != (f >= 0) {
		if f >= 0 {
			return Max
		}
		return Min
	}
	return s
}

// Sub returns f-g, saturating at Min and Max instead of wrapping.
func (f F) Sub(g F) F {
	s := f - g
	if (f >= 0) != (g >= 0) && (s >= 0) != (f >= 0) {
		if f >= 0 {
			return Max
		}
		return Min
	}
	return s
}

// Mul returns f×g rounded to the nearest F, halves away from zero (the
// exact 128-bit product is rounded once), saturating at Min and Max.
func (f F) Mul(g F) F {
	neg := (f < 0) != (g < 0)
	hi, lo := bits.Mul64(magnitude(f), magnitude(g)) // Q64.64
	lo, carry := bits.Add64(lo, 1<<31, 0)
	hi += carry
	if hi>>32 != 0 {
		return saturate(neg)
	}
	return signed(hi<<32|lo>>32, neg)
}

// Div returns f/g rounded to the nearest F, halves away from zero,
// saturating at Min and Max. Division by zero does not panic: f/0 is Max
// for f > 0, Min for f < 0, and 0/0 is 0.
func (f F) Div(g F) F {
	if g == 0 {
		switch {
		case f > 0:
			return Max
		case f < 0:
			return Min
		}
		return 0
	}
	neg := (f < 0) != (g < 0)
	n, d := magnitude(f), magnitude(g)
	hi, lo := n>>32, n<<32 // n·2³², Q64.64
	if hi >= d {
		return saturate(neg)
	}
	q, rem := bits.Div64(hi, lo, d)
	if rem >= d-rem { // 2·rem ≥ d: at or past the half
		q++
		if q == 0 {
			return saturate(neg)
		}
	}
	return signed(q, neg)
}

// magnitude returns |f| as a uint64 (exact, also for Min).
func magnitude(f F) uint64 {
	if f < 0 {
		return uint64(-f)
	}
	return uint64(f)
}

// signed returns the F of magnitude m and sign neg, saturating.
func signed(m uint64, neg bool) F {
	if neg {
		if m > 1<<63 {
			return Min
		}
		return F(-int64(m))
	}
	if m > math.MaxInt64 {
		return Max
	}
	return F(m)
}

// saturate returns Min if neg, else Max.
func saturate(neg bool) F {
	if neg {
		return Min
	}
	return Max
}
