package fixed_test

import (
	"fmt"

	"github.com/rollnet/rollnet/fixed"
)

// A body moves along a circle: the same bits on every architecture.
func Example() {
	angle := fixed.Ratio(1, 60) // radians per frame
	pos := fixed.V(fixed.FromInt(10), 0)
	for range 90 {
		pos = pos.Rotate(angle)
	}
	fmt.Println(pos.X, pos.Y, pos.Len())
	// Output: 0.7073720868 9.9749499506 10.0000000894
}

func ExampleF_Mul() {
	a, b := fixed.FromFloat64(1.5), fixed.FromInt(-3)
	fmt.Println(a.Mul(b), a.Div(b), fixed.Ratio(1, 3))
	fmt.Println(fixed.Max.Mul(fixed.FromInt(2))) // saturates
	// Output:
	// -4.5 -0.5 0.3333333333
	// 2147483647.9999999998
}

func ExampleAtan2() {
	fmt.Println(fixed.Atan2(fixed.One, fixed.One), fixed.Pi/4)
	fmt.Println(fixed.Hypot(fixed.FromInt(3), fixed.FromInt(4)))
	// Output:
	// 0.7853981634 0.7853981634
	// 5
}

func ExampleParse() {
	v, err := fixed.Parse("-12.375")
	fmt.Println(v, v.Floor(), v.Round(), v.Int(), err)
	_, err = fixed.Parse("1e3")
	fmt.Println(err)
	// Output:
	// -12.375 -13 -12 -12 <nil>
	// fixed: invalid syntax: "1e3"
}
