// Package fixed is fixed-point arithmetic for simulations that must reach
// the same bits on every machine: a number F, a vector Vec2, and the
// functions a game needs (Mul, Div, Sqrt, Sin, Cos, Atan2, Hypot), all
// integer arithmetic, so amd64, 386, arm64 and riscv64 compute the same
// results (internal/crossarch replays a simulation written with it on all
// four, bit for bit). Floats cannot promise that: Go may fuse x*y + z into
// one multiply-add on some architectures, and math's transcendental
// functions round differently between them.
//
// # The format
//
// F is Q32.32: an int64 counting 2⁻³² units, so the range is [-2³¹, 2³¹)
// and the resolution 2.3e-10. Q32.32 rather than Q16.16 because a game's
// numbers outgrow 16 integer bits at once (a squared distance across a
// 256-unit world is 65536, Q16.16's limit), and 16 fraction bits
// (1.5e-5) lose a slow velocity integrated over a minute of frames; the
// cost, a 128-bit product or quotient inside Mul and Div, is one
// instruction on 64-bit machines (math/bits).
//
// # Rounding and overflow
//
//   - + and - on F are exact, and wrap on overflow like int64; Add and Sub
//     saturate at Min and Max.
//   - Mul and Div compute the exact 128-bit result and round it once to
//     the nearest F, halves away from zero; a result out of range
//     saturates. Division by zero does not panic: f/0 is Max or Min by
//     f's sign, 0/0 is 0.
//   - Sqrt and Hypot are exactly rounded (Hypot has no intermediate
//     overflow); the square root of a negative number is 0.
//   - Sin, Cos and Atan2 are within 0.51 ulp (2⁻³²) of the exact result
//     over the sweeps below (0.5 is the rounding itself) for angles up to
//     2²⁰ radians; Sin and Cos over the whole range of F are within 2.06
//     ulp (2.05 measured, near 2³¹ radians).
//   - Vec2's Add, Sub, Dot, Cross and Rotate saturate like F's Add, Sub
//     and Mul: (40000, 40000)·(40000, 40000) is Max, not a wrapped
//     negative number.
//   - Floor, Ceil, Int (toward zero) and Round (halves away from zero)
//     convert to int32; FromInt is exact.
//   - String prints the fewest digits that Parse reads back to the same F;
//     Parse rounds any decimal to the nearest F.
//
// # Accuracy
//
// The largest error against math (an exact root for Hypot) over a dense
// sweep, in ulps of 2⁻³² (TestAccuracy, go test -v -run Accuracy ./fixed):
//
//	Sin, [-2π, 2π]                    0.501
//	Sin, [-2²⁰, 2²⁰]                  0.501
//	Sin, [-2³¹, 2³¹), the whole range  2.042 (exact reduction as reference)
//	Cos, [-2³¹, 2³¹)                  2.034
//	Sin, [2³⁰, 2³¹)                   2.051
//	Cos, [-2π, 2π]                    0.501
//	Atan2, the unit circle            0.507
//	Atan2, y in [-1000, 1000], x = 7  0.507
//	Sqrt, [0, 4]                      0.500
//	Sqrt, [0, 2²¹]                    0.500
//	Hypot, [-1000, 1000]²             0.500
//	Mul, Div                          exactly rounded (TestMulDivExact, FuzzArithmetic)
//
// Sin and Cos reduce the angle to turns with a 64-bit 1/(2π), so beyond
// 2²⁰ radians the reduction's error grows with |x|: measured, about
// π·|x|·2⁻⁶⁴ radians on top of the rounding, 1.55 ulp at 2³¹.
//
// # Speed
//
// The time of each beside float64's in the same run (go run ./bench
// ./fixed/, which pairs BenchmarkX with BenchmarkXBaselineFloat64; three
// runs on the project's shared, loaded 2-vCPU machine, so ranges): Mul
// 0.6-1.0x, Div 1.1-1.35x, Sin 1.9-2.8x (math.Sin), Atan2 2.6-3.6x,
// Sqrt 2.5-4.5x and Hypot 3.4-4.6x (a 128-bit integer root against one
// instruction), Vec2.Rotate then Normalize 2.3-3.4x. Nothing allocates
// but String and Parse (TestAllocs; every benchmark reads 0 B/op).
package fixed
