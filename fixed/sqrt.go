package fixed

import "math/bits"

// Sqrt returns √f rounded to the nearest F; the square root of a negative
// number is 0 (there is no NaN).
func (f F) Sqrt() F {
	if f <= 0 {
		return 0
	}
	u := uint64(f)
	return F(sqrt128(u>>32, u<<32)) // √(f·2³²) in units of 2⁻³²
}

// Hypot returns √(x²+y²) rounded to the nearest F, without overflow in
// between, saturating at Max.
func Hypot(x, y F) F {
	ax, ay := magnitude(x), magnitude(y)
	h1, l1 := bits.Mul64(ax, ax)
	h2, l2 := bits.Mul64(ay, ay)
	lo, c := bits.Add64(l1, l2, 0)
	hi := h1 + h2 + c // below 2¹²⁸: ax, ay ≤ 2⁶³
	r := sqrt128(hi, lo)
	if r > 1<<63-1 {
		return Max
	}
	return F(r)
}

// sqrt128 returns √(hi·2⁶⁴+lo) rounded to the nearest integer, for hi
// at most 2⁶³ (so the root exceeds hi, as bits.Div64 needs).
func sqrt128(hi, lo uint64) uint64 {
	if hi == 0 && lo == 0 {
		return 0
	}
	n := 128 - bits.LeadingZeros64(hi)
	if hi == 0 {
		n = 64 - bits.LeadingZeros64(lo)
	}
	// Newton's method from above: r₀ = 2^⌈n/2⌉ ≥ √N, then
	// r ← ⌊(r + ⌊N/r⌋)/2⌋ decreases to ⌊√N⌋.
	var r uint64 = 1<<63 | (1<<63 - 1)
	if e := (n + 1) / 2; e < 64 {
		r = 1 << e
	}
	// Every r is at least ⌊√N⌋ ≥ ⌊2³²·√hi⌋ > hi, as bits.Div64 needs.
	for {
		q, _ := bits.Div64(hi, lo, r)
		if q >= r {
			break
		}
		r = q + (r-q)/2
	}
	// Round: √N > r+½ exactly when N - r² > r (N and r integers).
	sh, sl := bits.Mul64(r, r)
	dl, b := bits.Sub64(lo, sl, 0)
	dh, _ := bits.Sub64(hi, sh, b)
	if dh != 0 || dl > r {
		r++
	}
	return r
}
