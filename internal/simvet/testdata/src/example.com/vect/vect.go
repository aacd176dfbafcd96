// Package vect is shaped like the vector helpers of Go physics engines (a
// Chipmunk2D port's Vector methods, a Box2D port's free functions): small
// enough that the compiler inlines every one of them into its caller,
// where a product made in one helper meets the add of another and fuses.
package vect

// Vect is a Chipmunk-style vector with value methods.
type Vect struct{ X, Y float64 }

func (v Vect) Add(w Vect) Vect { return Vect{v.X + w.X, v.Y + w.Y} }

func (v Vect) Sub(w Vect) Vect { return Vect{v.X - w.X, v.Y - w.Y} }

func (v Vect) Mult(s float64) Vect { return Vect{v.X * s, v.Y * s} }

func (v Vect) Neg() Vect { return Vect{-v.X, -v.Y} }

func (v Vect) Perp() Vect { return Vect{-v.Y, v.X} }

// Dot and Cross hold their own x*y + z: the source rule sees them.
func (v Vect) Dot(w Vect) float64 { return v.X*w.X + v.Y*w.Y }

func (v Vect) Cross(w Vect) float64 { return v.X*w.Y - v.Y*w.X }

// Lerp is written with products converted: nothing in it fuses.
func (v Vect) Lerp(w Vect, t float64) Vect {
	return Vect{float64(v.X*(1-t)) + float64(w.X*t), float64(v.Y*(1-t)) + float64(w.Y*t)}
}

// Sum is the small sum a product local is passed to.
func Sum(a, b float64) float64 { return a + b }

// Vec2 and its free functions are Box2D-style.
type Vec2 struct{ X, Y float64 }

func Add(a, b Vec2) Vec2 { return Vec2{a.X + b.X, a.Y + b.Y} }

func MulSV(s float64, v Vec2) Vec2 { return Vec2{s * v.X, s * v.Y} }

func CrossSV(s float64, v Vec2) Vec2 { return Vec2{-s * v.Y, s * v.X} }
