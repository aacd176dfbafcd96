package ringmodel

// Control is the part of a state ring that does not depend on how the
// state is typed: the methods Ring and TypedRing share.
type Control interface {
	Commit()
	Rollback(n int) error
	Depth() int
	Capacity() int
	Reset()
	Checksum() uint32
	ChecksumAt(n int) (uint32, error)
}

// Ring is a state ring seen through byte views: the methods of
// rollback.Bytes, and of rollback.Ring[T] through Typed.
type Ring interface {
	Control
	Live() []byte
	Peek(n int) ([]byte, error)
}

// TypedRing is a state ring over a typed state, the methods of
// rollback.Ring[T].
type TypedRing[T any] interface {
	Control
	Live() *T
	Peek(n int) (*T, error)
}

// Typed returns r as a Ring, viewing each state through bytesOf
// (rollback.BytesOf[T]). A Peek that returns a non-nil pointer together with
// an error comes out as a non-nil empty view, which Check reports.
func Typed[T any](r TypedRing[T], bytesOf func(*T) []byte) Ring {
	return typed[T]{Control: r, r: r, bytesOf: bytesOf}
}

type typed[T any] struct {
	Control
	r       TypedRing[T]
	bytesOf func(*T) []byte
}

func (u typed[T]) Live() []byte { return u.bytesOf(u.r.Live()) }

func (u typed[T]) Peek(n int) ([]byte, error) {
	p, err := u.r.Peek(n)
	switch {
	case err == nil:
		return u.bytesOf(p), nil
	case p != nil:
		return []byte{}, err
	default:
		return nil, err
	}
}
