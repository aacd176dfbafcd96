package fixed

import (
	"fmt"
	"math/big"
	"math/bits"
	"strconv"
)

// maxParse bounds the text Parse reads, so its work is bounded.
const maxParse = 64

// String returns f in decimal, with the fewest fraction digits (at most
// 10) that Parse reads back to the same f: "1.5", "-0.0000000002",
// "3.1415926536".
func (f F) String() string {
	var b [24]byte
	return string(f.Append(b[:0]))
}

// Append appends f's String to b.
func (f F) Append(b []byte) []byte {
	m := magnitude(f)
	if f < 0 {
		b = append(b, '-')
	}
	b = strconv.AppendUint(b, m>>32, 10)
	frac := m & (1<<32 - 1)
	if frac == 0 {
		return b
	}
	// The shortest n whose n-digit rounding of frac reads back as frac.
	pow := uint64(1)
	for n := 1; n <= 10; n++ {
		pow *= 10
		d := roundDiv(frac, pow, 1<<32) // frac·10ⁿ/2³², rounded
		if roundDiv(d, 1<<32, pow) == frac || n == 10 {
			if d == pow { // rounded up to the next integer: only at n=10 with frac near 1, never read back
				d--
			}
			b = append(b, '.')
			var digits [20]byte
			s := strconv.AppendUint(digits[:0], d, 10)
			for range n - len(s) {
				b = append(b, '0')
			}
			b = append(b, s...)
			for b[len(b)-1] == '0' {
				b = b[:len(b)-1]
			}
			return b
		}
	}
	return b
}

// roundDiv returns a·b/c rounded to nearest (halves up), for a result
// below 2⁶⁴, with a 128-bit product.
func roundDiv(a, b, c uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	lo, carry := bits.Add64(lo, c/2, 0)
	q, _ := bits.Div64(hi+carry, lo, c)
	return q
}

// Parse reads a decimal number ("-12.375", "+0.5", ".25", "7") and
// returns the nearest F (halves away from zero). It accepts at most 64
// bytes; ErrSyntax and ErrRange are wrapped with the text.
func Parse(s string) (F, error) {
	if len(s) > maxParse {
		return 0, fmt.Errorf("%w: %d bytes (at most %d)", ErrSyntax, len(s), maxParse)
	}
	in := s
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var digits []byte
	fracDigits, dot := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits = append(digits, c)
			if dot {
				fracDigits++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, fmt.Errorf("%w: %q", ErrSyntax, in)
		}
	}
	if len(digits) == 0 {
		return 0, fmt.Errorf("%w: %q", ErrSyntax, in)
	}
	// raw = round(D·2³²/10^fracDigits), exactly.
	num, _ := new(big.Int).SetString(string(digits), 10)
	num.Lsh(num, 32)
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(fracDigits)), nil)
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Lsh(r, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	if !q.IsInt64() {
		return 0, fmt.Errorf("%w: %q", ErrRange, in)
	}
	return F(q.Int64()), nil
}
