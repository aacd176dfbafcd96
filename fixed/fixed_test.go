package fixed

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
)

// exact returns the F nearest the rational a·b/c (halves away from zero)
// and whether it is in range: the reference for Mul and Div.
func exact(a, b, c *big.Int) (F, bool) {
	n := new(big.Int).Mul(a, b)
	neg := n.Sign()*c.Sign() < 0
	n.Abs(n)
	d := new(big.Int).Abs(c)
	q, r := new(big.Int).QuoRem(n, d, new(big.Int))
	if r.Lsh(r, 1).Cmp(d) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	if !q.IsInt64() {
		return 0, false
	}
	return F(q.Int64()), true
}

var two32 = big.NewInt(1 << 32)

// checkMul requires Mul to be the exactly rounded product, or saturated.
func checkMul(t testing.TB, a, b F) {
	want, ok := exact(big.NewInt(int64(a)), big.NewInt(int64(b)), two32)
	got := a.Mul(b)
	if !ok {
		want = saturate((a < 0) != (b < 0))
	}
	require.Equal(t, want, got, "%v × %v (raw %d × %d)", a, b, int64(a), int64(b))
}

// checkDiv requires Div to be the exactly rounded quotient, or saturated.
func checkDiv(t testing.TB, a, b F) {
	got := a.Div(b)
	if b == 0 {
		return // TestDivByZero
	}
	want, ok := exact(big.NewInt(int64(a)), two32, big.NewInt(int64(b)))
	if !ok {
		want = saturate((a < 0) != (b < 0))
	}
	require.Equal(t, want, got, "%v / %v (raw %d / %d)", a, b, int64(a), int64(b))
}

// edges are values where rounding and saturation turn.
var edges = []F{0, 1, -1, 2, Half, -Half, Half - 1, Half + 1, One, -One, One + 1, One - 1, 3 * Half,
	Max, Min, Max - 1, Min + 1, FromInt(46341), -FromInt(46341), FromInt(65536), Pi, -Pi, 1 << 62, -(1 << 62)}

func TestMulDivExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := append([]F(nil), edges...)
	for range 300 {
		// Every magnitude, so products hit the rounding and the range.
		vals = append(vals, F(rng.Int64()>>rng.IntN(64)))
	}
	for _, a := range vals {
		for _, b := range vals {
			checkMul(t, a, b)
			checkDiv(t, a, b)
		}
	}
}

func TestMulRoundsHalvesAwayFromZero(t *testing.T) {
	// 1 ulp × ½ is exactly half an ulp: away from zero either way.
	require.Equal(t, F(1), F(1).Mul(Half))
	require.Equal(t, F(-1), F(-1).Mul(Half))
	require.Equal(t, F(0), F(1).Mul(Half-1))
	require.Equal(t, F(1), F(1).Div(FromInt(2)), "half an ulp")
	require.Equal(t, F(-1), F(-1).Div(FromInt(2)))
	require.Equal(t, F(2), F(3).Div(FromInt(2)), "1.5 ulp")
	require.Equal(t, F(0), F(1).Div(FromInt(2)+1))
	require.Equal(t, Max, FromInt(1<<16).Mul(FromInt(1<<15)), "2³¹ saturates")
	require.Equal(t, Min, FromInt(1<<16).Mul(FromInt(-(1 << 15))), "-2³¹ is Min itself")
	require.Equal(t, Min, Min.Mul(One))
	require.Equal(t, Max, Min.Mul(-One))
}

func TestDivByZero(t *testing.T) {
	require.Equal(t, Max, One.Div(0))
	require.Equal(t, Min, (-One).Div(0))
	require.Equal(t, F(0), F(0).Div(0))
	require.Equal(t, Ratio(1, 3), FromRaw(1431655765)) // ⅓ rounded down
	require.Equal(t, Ratio(2, 3), FromRaw(2863311531)) // ⅔ rounded up
}

func TestAddSubSaturate(t *testing.T) {
	require.Equal(t, Max, Max.Add(1))
	require.Equal(t, Min, Min.Add(-1))
	require.Equal(t, Min, Min.Sub(1))
	require.Equal(t, Max, Max.Sub(-1))
	require.Equal(t, One, Half.Add(Half))
	require.Equal(t, F(0), One.Sub(One))
	m := Max
	require.Equal(t, Min, m+1, "+ wraps, like int64")
}

func TestIntConversions(t *testing.T) {
	for _, c := range []struct {
		f                       F
		floor, ceil, trunc, rnd int32
	}{
		{FromInt(3), 3, 3, 3, 3},
		{FromInt(3) + Half, 3, 4, 3, 4},
		{FromInt(3) + Half - 1, 3, 4, 3, 3},
		{-FromInt(3) - Half, -4, -3, -3, -4},
		{-FromInt(3) - Half + 1, -4, -3, -3, -3},
		{-1, -1, 0, 0, 0},
		{Max, math.MaxInt32, math.MaxInt32, math.MaxInt32, math.MaxInt32},
		{Min, math.MinInt32, math.MinInt32, math.MinInt32, math.MinInt32},
	} {
		require.Equal(t, c.floor, c.f.Floor(), "Floor(%v)", c.f)
		require.Equal(t, c.ceil, c.f.Ceil(), "Ceil(%v)", c.f)
		require.Equal(t, c.trunc, c.f.Int(), "Int(%v)", c.f)
		require.Equal(t, c.rnd, c.f.Round(), "Round(%v)", c.f)
	}
	for _, n := range []int32{0, 1, -1, math.MaxInt32, math.MinInt32, 12345} {
		require.Equal(t, n, FromInt(n).Int())
	}
	require.Equal(t, Max, FromFloat64(1e300))
	require.Equal(t, Min, FromFloat64(-1e300))
	require.Equal(t, F(0), FromFloat64(math.NaN()))
	require.Equal(t, 2.75, FromFloat64(2.75).Float64())
}

func TestStringParse(t *testing.T) {
	for _, c := range []struct {
		f F
		s string
	}{
		{0, "0"}, {One, "1"}, {-One, "-1"}, {Half, "0.5"}, {FromInt(-12) - 3*One/8, "-12.375"},
		{1, "0.0000000002"}, {-1, "-0.0000000002"}, {Pi, "3.1415926537"}, {Min, "-2147483648"},
		{Max, "2147483647.9999999998"}, {Ratio(1, 3), "0.3333333333"}, {Ratio(1, 10), "0.1"},
	} {
		require.Equal(t, c.s, c.f.String())
		got, err := Parse(c.s)
		require.NoError(t, err, c.s)
		require.Equal(t, c.f, got, "Parse(%q)", c.s)
	}
	for _, s := range []string{"", "-", ".", "1.2.3", "1e3", "0x10", " 1", "1 ", "--1", "1-"} {
		_, err := Parse(s)
		require.ErrorIs(t, err, ErrSyntax, "%q", s)
	}
	for _, s := range []string{"2147483648", "-2147483648.0000000002", "99999999999"} {
		_, err := Parse(s)
		require.ErrorIs(t, err, ErrRange, "%q", s)
	}
	// Exactly half an ulp (2⁻³³) rounds away from zero; a digit less
	// rounds to zero.
	v, err := Parse("0.000000000116415321826934814453125")
	require.NoError(t, err)
	require.Equal(t, F(1), v)
	v, err = Parse("-0.000000000116415321826934814453125")
	require.NoError(t, err)
	require.Equal(t, F(-1), v)
	v, err = Parse("0.000000000116415321826934814453124")
	require.NoError(t, err)
	require.Equal(t, F(0), v)
	v, err = Parse("+.25")
	require.NoError(t, err)
	require.Equal(t, One/4, v)
	v, err = Parse("-2147483648.00000000011") // rounds to Min
	require.NoError(t, err)
	require.Equal(t, Min, v)
	_, err = Parse(string(make([]byte, 65)))
	require.True(t, errors.Is(err, ErrSyntax))
}

// ulps returns |got - want| in units of 2⁻³², with want exact.
func ulps(got F, want float64) float64 { return math.Abs(float64(got) - want*(1<<32)) }

// accuracy is one row of the package doc's table: the largest error of
// a function against math over a dense sweep.
type accuracy struct {
	name  string
	bound float64 // ulps the test requires: the measured worst, rounded up
	sweep func(yield func(got F, want float64))
}

// twoPiExact is 2π to 100 digits, far beyond what reducing an F needs
// (2³¹ radians reduced to within 2⁻⁶⁰ takes about 95 bits).
var twoPiExact, _, _ = big.ParseFloat("6.283185307179586476925286766559005768394338798750211641949889184615632812572417997256069650684234136", 10, 400, big.ToNearestEven)

// reduceExact returns x (exactly) modulo 2π, in [0, 2π), to float64's
// precision.
func reduceExact(x F) float64 {
	v := new(big.Float).SetPrec(400).SetInt64(int64(x))
	v.SetMantExp(v, -32)
	q := new(big.Float).SetPrec(400).Quo(v, twoPiExact)
	k, _ := q.Int(nil)
	if q.Sign() < 0 && !q.IsInt() {
		k.Sub(k, big.NewInt(1))
	}
	r := new(big.Float).SetPrec(400).SetInt(k)
	r.Mul(r, twoPiExact)
	r.Sub(v, r)
	f, _ := r.Float64()
	return f
}

// sweep yields n evenly spaced Fs over [lo, hi], plus a per-run random
// jitter so every bit pattern of the fraction is hit.
func sweep(lo, hi float64, n int, f func(x F)) {
	rng := rand.New(rand.NewPCG(3, 4))
	step := (hi - lo) / float64(n)
	for i := range n {
		x := FromFloat64(lo + float64(i)*step)
		f(x + F(rng.Int64N(int64(FromFloat64(step))+1)))
	}
}

var accuracies = []accuracy{
	{"Sin, [-2π, 2π]", 0.51, func(yield func(F, float64)) {
		sweep(-2*math.Pi, 2*math.Pi, 1<<18, func(x F) { yield(Sin(x), math.Sin(x.Float64())) })
	}},
	{"Sin, [-2²⁰, 2²⁰]", 0.51, func(yield func(F, float64)) {
		sweep(-(1 << 20), 1<<20, 1<<17, func(x F) { yield(Sin(x), math.Sin(x.Float64())) })
	}},
	// The whole range, against an exact reduction (x·2³² no longer fits
	// float64's 53 bits beyond 2²¹, so math.Sin(x.Float64()) would be
	// the wrong reference there).
	{"Sin, [-2³¹, 2³¹)", 2.1, func(yield func(F, float64)) {
		sweep(-(1 << 31), 1<<31-1, 1<<17, func(x F) { yield(Sin(x), math.Sin(reduceExact(x))) })
	}},
	{"Cos, [-2³¹, 2³¹)", 2.1, func(yield func(F, float64)) {
		sweep(-(1 << 31), 1<<31-1, 1<<17, func(x F) { yield(Cos(x), math.Cos(reduceExact(x))) })
	}},
	{"Sin, [2³⁰, 2³¹)", 2.1, func(yield func(F, float64)) {
		sweep(1<<30, 1<<31-1, 1<<17, func(x F) { yield(Sin(x), math.Sin(reduceExact(x))) })
	}},
	{"Cos, [-2π, 2π]", 0.51, func(yield func(F, float64)) {
		sweep(-2*math.Pi, 2*math.Pi, 1<<18, func(x F) { yield(Cos(x), math.Cos(x.Float64())) })
	}},
	{"Atan2, the unit circle", 0.51, func(yield func(F, float64)) {
		sweep(-math.Pi, math.Pi, 1<<17, func(a F) {
			s, c := SinCos(a)
			yield(Atan2(s, c), math.Atan2(s.Float64(), c.Float64()))
		})
	}},
	{"Atan2, y in [-1000, 1000], x = 7", 0.51, func(yield func(F, float64)) {
		sweep(-1000, 1000, 1<<17, func(y F) { yield(Atan2(y, FromInt(7)), math.Atan2(y.Float64(), 7)) })
	}},
	{"Sqrt, [0, 4]", 0.5, func(yield func(F, float64)) {
		sweep(0, 4, 1<<18, func(x F) { yield(x.Sqrt(), math.Sqrt(x.Float64())) })
	}},
	{"Sqrt, [0, 2²¹]", 0.5, func(yield func(F, float64)) {
		// float64 has 53 bits: x·2³² is exact for x < 2²¹, and the
		// root's error is a ten-millionth of an ulp above.
		sweep(0, 1<<21, 1<<17, func(x F) { yield(x.Sqrt(), math.Sqrt(x.Float64())) })
	}},
	{"Hypot, [-1000, 1000]²", 0.5, func(yield func(F, float64)) {
		rng := rand.New(rand.NewPCG(5, 6))
		for range 1 << 17 {
			x, y := F(rng.Int64N(int64(FromInt(2000))))-FromInt(1000), F(rng.Int64N(int64(FromInt(2000))))-FromInt(1000)
			// math.Hypot rounds twice; the exact root from big.Float.
			yield(Hypot(x, y), exactHypot(x, y))
		}
	}},
}

// exactHypot returns √(x²+y²) to 100 bits.
func exactHypot(x, y F) float64 {
	bx := new(big.Float).SetPrec(200).SetInt64(int64(x))
	by := new(big.Float).SetPrec(200).SetInt64(int64(y))
	s := new(big.Float).SetPrec(200).Add(new(big.Float).Mul(bx, bx), new(big.Float).Mul(by, by))
	s.Sqrt(s)
	v, _ := s.Float64()
	return v / (1 << 32)
}

// The accuracy table of the package doc: each function's largest error
// against math (or an exact root) over a dense sweep.
func TestAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("sweeps a million points")
	}
	for _, a := range accuracies {
		var worst float64
		a.sweep(func(got F, want float64) { worst = max(worst, ulps(got, want)) })
		t.Logf("%-34s max error %.3f ulp", a.name, worst)
		require.LessOrEqual(t, worst, a.bound, a.name)
	}
}

func TestSpecialValues(t *testing.T) {
	require.Equal(t, F(0), Sin(0))
	require.Equal(t, One, Cos(0))
	require.Equal(t, One, Sin(HalfPi))
	require.Equal(t, F(0), Atan2(0, One))
	require.Equal(t, Pi, Atan2(0, -One))
	require.Equal(t, HalfPi, Atan2(One, 0))
	require.Equal(t, -HalfPi, Atan2(-One, 0))
	require.Equal(t, F(0), Atan2(0, 0))
	require.Equal(t, F(0), FromInt(-4).Sqrt())
	require.Equal(t, FromInt(5), Hypot(FromInt(3), FromInt(-4)))
	require.Equal(t, Max, Hypot(Max, Max))
	require.Equal(t, Max, Hypot(Min, Min))
	require.Equal(t, FromRaw(6074001000), FromInt(2).Sqrt(), "√2·2³² = 6074000999.95")
	require.Equal(t, FromInt(46340), FromInt(46340*46340).Sqrt())
}

// Vec2's arithmetic saturates as Mul does, where + and - on F wrap.
func TestVec2Saturates(t *testing.T) {
	big := V(FromInt(40000), FromInt(40000))
	require.Equal(t, Max, big.Dot(big), "40000² + 40000² is past Max")
	require.Equal(t, Min, big.Dot(V(FromInt(-40000), FromInt(-40000))))
	require.Equal(t, Max, big.Cross(V(FromInt(-40000), FromInt(40000))))
	require.Equal(t, V(Max, Max), V(Max, Max).Add(V(One, One)))
	require.Equal(t, V(Min, Min), V(Min, Min).Sub(V(One, One)))
	require.Equal(t, V(FromInt(3), FromInt(-1)), V(One, One).Add(V(FromInt(2), FromInt(-2))), "in range: exact")
}

func TestVec2(t *testing.T) {
	v := V(FromInt(3), FromInt(4))
	require.Equal(t, FromInt(5), v.Len())
	n := v.Normalize()
	require.Equal(t, Ratio(3, 5), n.X)
	require.Equal(t, Ratio(4, 5), n.Y)
	require.Equal(t, Vec2{}, Vec2{}.Normalize())
	require.Equal(t, FromInt(3*-4+4*3), v.Dot(V(FromInt(-4), FromInt(3))))
	require.Equal(t, FromInt(25), v.Cross(V(FromInt(-4), FromInt(3))), "w is 90° counterclockwise of v")
	r := v.Rotate(HalfPi)
	require.InDelta(t, -4, r.X.Float64(), 1e-8)
	require.InDelta(t, 3, r.Y.Float64(), 1e-8)
	require.InDelta(t, math.Atan2(4, 3), v.Angle().Float64(), 1e-9)
	require.Equal(t, V(FromInt(6), FromInt(8)), v.Add(v))
	require.Equal(t, Vec2{}, v.Sub(v))
	require.Equal(t, V(FromInt(3)/2, FromInt(2)), v.Scale(Half))
	// Normalizing keeps the length within a few ulps of 1 everywhere.
	for a := range 720 {
		u := V(FromInt(1000), 0).Rotate(Ratio(int32(a), 100)).Normalize()
		require.InDelta(t, 1, u.Len().Float64(), 4e-9)
	}
}

// Nothing allocates but String and Parse.
func TestAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector allocates")
	}
	x, y := FromFloat64(1.25), FromFloat64(-0.75)
	v := V(x, y)
	var sink F
	var sv Vec2
	var buf [32]byte
	allocs.RequireZero(t, 100, func() {
		sink += x.Mul(y) + x.Div(y) + x.Sqrt() + Sin(x) + Cos(y) + Atan2(y, x) + Hypot(x, y) + x.Add(y) + x.Sub(y)
		sv = sv.Add(v.Rotate(x).Normalize().Scale(y))
		sink += v.Dot(sv) + v.Cross(sv) + v.Len() + v.Angle()
		_ = x.Append(buf[:0])
	})
	_, _ = sink, sv
}
