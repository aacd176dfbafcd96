package fixed

// Vec2 is a 2D vector of F. It is pointer-free and padding-free, so it
// can be part of a rollback state.
type Vec2 struct{ X, Y F }

// V returns the vector (x, y).
func V(x, y F) Vec2 { return Vec2{x, y} }

// Add returns v+w, each component saturating like F's Add (and as Mul
// does): a vector near the edge of F's range stops at Min or Max rather
// than wrapping to the other side.
func (v Vec2) Add(w Vec2) Vec2 { return Vec2{v.X.Add(w.X), v.Y.Add(w.Y)} }

// Sub returns v-w, each component saturating like F's Sub.
func (v Vec2) Sub(w Vec2) Vec2 { return Vec2{v.X.Sub(w.X), v.Y.Sub(w.Y)} }

// Scale returns v×k, each component rounded as Mul.
func (v Vec2) Scale(k F) Vec2 { return Vec2{v.X.Mul(k), v.Y.Mul(k)} }

// Dot returns v·w, each product rounded as Mul, the sum saturating.
func (v Vec2) Dot(w Vec2) F { return v.X.Mul(w.X).Add(v.Y.Mul(w.Y)) }

// Cross returns the z of v×w (v.X·w.Y - v.Y·w.X), each product rounded
// as Mul, the difference saturating: positive when w is counterclockwise
// of v.
func (v Vec2) Cross(w Vec2) F { return v.X.Mul(w.Y).Sub(v.Y.Mul(w.X)) }

// Len returns |v|, as Hypot.
func (v Vec2) Len() F { return Hypot(v.X, v.Y) }

// Normalize returns v scaled to length 1 (each component rounded as
// Div), or the zero vector for the zero vector.
func (v Vec2) Normalize() Vec2 {
	l := v.Len()
	if l == 0 {
		return Vec2{}
	}
	return Vec2{v.X.Div(l), v.Y.Div(l)}
}

// Rotate returns v rotated counterclockwise by angle radians.
func (v Vec2) Rotate(angle F) Vec2 {
	s, c := SinCos(angle)
	return Vec2{v.X.Mul(c).Sub(v.Y.Mul(s)), v.X.Mul(s).Add(v.Y.Mul(c))}
}

// Angle returns v's angle in radians, as Atan2(v.Y, v.X).
func (v Vec2) Angle() F { return Atan2(v.Y, v.X) }
