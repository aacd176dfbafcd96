package fixed

import "math/bits"

// The trigonometric functions reduce an angle to turns (a fraction of a
// full circle in 0.64 fixed point, where wrapping is exact), fold it into
// the first eighth of a circle, and evaluate a Taylor polynomial in 1.63
// fixed point, rounding once at the end. Everything is integer
// arithmetic.

const (
	invTwoPi64 = 0x28be60db9391054a // 1/(2π) in 0.64
	halfPi63   = 0xc90fdaa22168c235 // π/2 in 1.63
	one63      = 1 << 63            // 1 in 1.63
	pi61       = 0x6487ed5110b4611a // π in 3.61 (signed)
)

// Taylor coefficients 1/(k(k+1)) in 1.63, truncated: sin's for k = 2, 4, …,
// 12 and cos's for k = 1, 3, …, 11, innermost last.
var (
	sinC = [6]uint64{one63 / 6, one63 / 20, one63 / 42, one63 / 72, one63 / 110, one63 / 156}
	cosC = [6]uint64{one63 / 2, one63 / 12, one63 / 30, one63 / 56, one63 / 90, one63 / 132}
)

// mul63 multiplies two 1.63 numbers, truncating.
func mul63(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi<<1 | lo>>63
}

// poly evaluates 1 - z·c₀(1 - z·c₁(1 - …)) in 1.63.
func poly(z uint64, c *[6]uint64) uint64 {
	p := uint64(one63)
	for i := len(c) - 1; i >= 0; i-- {
		p = one63 - mul63(mul63(z, c[i]), p)
	}
	return p
}

// turns returns f radians as a fraction of a turn, modulo 1, in 0.64.
func turns(f F) uint64 {
	hi, lo := bits.Mul64(magnitude(f), invTwoPi64) // 32.96
	t := hi<<32 | lo>>32
	if f < 0 {
		t = -t
	}
	return t
}

// sinTurns returns sin(2π·t) for t in turns (0.64).
func sinTurns(t uint64) F {
	quadrant := t >> 62
	frac := t << 2 // position within the quadrant, 0.64
	useCos := quadrant&1 == 1
	if frac > 1<<63 { // past the eighth: sin φ = cos(π/2-φ)
		frac = -frac
		useCos = !useCos
	}
	theta, _ := bits.Mul64(frac, halfPi63) // 1.63, at most π/4
	z := mul63(theta, theta)
	var v uint64
	if useCos {
		v = poly(z, &cosC)
	} else {
		v = mul63(theta, poly(z, &sinC))
	}
	r := F((v + 1<<30) >> 31) // 1.63 to 32.32, rounded
	if quadrant >= 2 {
		return -r
	}
	return r
}

// Sin returns the sine of f radians, within 0.51 ulp for |f| up to 2²⁰
// and within 2.06 ulp over the whole range of F (measured against an
// exact reduction: see the package doc); beyond 2²⁰ the reduction's error
// grows as about π·|f|·2⁻⁶⁴ radians.
func Sin(f F) F { return sinTurns(turns(f)) }

// Cos returns the cosine of f radians, with Sin's accuracy.
func Cos(f F) F { return sinTurns(turns(f) + 1<<62) }

// SinCos returns Sin(f) and Cos(f), reducing f once.
func SinCos(f F) (sin, cos F) {
	t := turns(f)
	return sinTurns(t), sinTurns(t + 1<<62)
}

// atan61 is atan(2⁻ⁱ) in 3.61, rounded, for CORDIC.
var atan61 = [40]int64{
	0x1921fb54442d1847, 0xed63382b0dda7b4, 0x7d6dd7e4b203759, 0x3fab7535585edb9, 0x1ff55bb72cfde9c,
	0xffeaaddd4bb125, 0x7ffd556eedca6b, 0x3fffaaab77752e, 0x1ffff5555bbbb7, 0xffffeaaaaddde,
	0x7ffffd55556ef, 0x3fffffaaaaab7, 0x1ffffff555556, 0xffffffeaaaab, 0x7ffffffd5555,
	0x3fffffffaaab, 0x1ffffffff555, 0xffffffffeab, 0x7ffffffffd5, 0x3fffffffffb,
	0x1ffffffffff, 0x10000000000, 0x8000000000, 0x4000000000, 0x2000000000,
	0x1000000000, 0x800000000, 0x400000000, 0x200000000, 0x100000000,
	0x80000000, 0x40000000, 0x20000000, 0x10000000, 0x8000000,
	0x4000000, 0x2000000, 0x1000000, 0x800000, 0x400000,
}

// Atan2 returns the angle of the point (x, y) in radians, in [-π, π]:
// atan(y/x) in the quadrant of (x, y), like math.Atan2, and 0 for (0, 0).
// It is CORDIC in vectoring mode over 40 rotations, within one ulp.
func Atan2(y, x F) F {
	switch {
	case y == 0 && x >= 0:
		return 0
	case y == 0:
		return Pi
	case x == 0 && y > 0:
		return HalfPi
	case x == 0:
		return -HalfPi
	}
	ax, ay := magnitude(x), magnitude(y)
	// Scale the larger to [2⁶⁰, 2⁶¹): room for CORDIC's gain of 1.65.
	m := max(ax, ay)
	if s := bits.LeadingZeros64(m) - 3; s > 0 {
		ax, ay = ax<<s, ay<<s
	} else if s < 0 {
		ax, ay = ax>>-s, ay>>-s
	}
	vx, vy := int64(ax), int64(ay)
	var z int64 // 3.61
	for i, a := range atan61 {
		if vy > 0 {
			vx, vy = vx+vy>>i, vy-vx>>i
			z += a
		} else {
			vx, vy = vx-vy>>i, vy+vx>>i
			z -= a
		}
	}
	if x < 0 {
		z = pi61 - z
	}
	if y < 0 {
		z = -z
	}
	return F((z + 1<<28) >> 29) // 3.61 to 32.32, rounded
}
