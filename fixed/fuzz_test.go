package fixed

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Any text: Parse never panics, and what it accepts prints back to text
// it reads to the same F.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "-12.375", "3.1415926537", "+.25", "2147483647.9999999998", "-2147483648", "1e3", "", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			return
		}
		back, err := Parse(v.String())
		require.NoError(t, err, "%q printed as %q", s, v.String())
		require.Equal(t, v, back, "%q printed as %q", s, v.String())
	})
}

// Any F prints to text that parses back to it, with at most ten fraction
// digits.
func FuzzString(f *testing.F) {
	for _, v := range edges {
		f.Add(int64(v))
	}
	f.Fuzz(func(t *testing.T, raw int64) {
		v := FromRaw(raw)
		s := v.String()
		back, err := Parse(s)
		require.NoError(t, err, s)
		require.Equal(t, v, back, s)
		require.LessOrEqual(t, len(s), len("-2147483648.0000000000"))
	})
}

// Any two Fs: Mul and Div are the exactly rounded results (or saturate),
// and nothing panics, Sqrt and the trigonometric functions included.
func FuzzArithmetic(f *testing.F) {
	for _, a := range edges[:8] {
		for _, b := range edges[8:16] {
			f.Add(int64(a), int64(b))
		}
	}
	f.Fuzz(func(t *testing.T, a, b int64) {
		x, y := FromRaw(a), FromRaw(b)
		checkMul(t, x, y)
		checkDiv(t, x, y)
		_ = Hypot(x, y) + Atan2(x, y) + Sin(x) + Cos(y) + x.Sqrt()
		require.GreaterOrEqual(t, x.Sqrt(), F(0))
		if x > 0 && x < FromInt(1<<20) {
			s := x.Sqrt()
			require.InDelta(t, x.Float64(), s.Mul(s).Float64(), 2*s.Float64()/(1<<32)+1e-9, "√%v = %v", x, s)
		}
	})
}
