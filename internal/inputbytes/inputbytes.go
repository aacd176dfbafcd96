// Package inputbytes converts a game's input values to and from their
// bytes without allocating: the bytes are the value's memory layout
// (little-endian on every platform rollnet targets). The P2P session and
// the recording format share it, so both refuse the same bytes.
package inputbytes

import (
	"errors"
	"reflect"

	"github.com/rollnet/rollnet/rollback"
)

// ErrBool reports bytes that back a bool but are neither 0 nor 1: such a
// value is not a Go bool.
var ErrBool = errors.New("inputbytes: a bool byte is neither 0 nor 1")

// Codec converts inputs of type I. Size is unsafe.Sizeof(I).
type Codec[I comparable] struct {
	Size  int
	bools []int // byte offsets of every bool inside I, for Decode's check
}

// New checks I (pointer-free, gap-free, fixed-width: rollback.CheckType)
// and records where its bools live. The error is CheckType's.
func New[I comparable]() (Codec[I], error) {
	t := reflect.TypeFor[I]()
	if err := rollback.CheckType(t); err != nil {
		return Codec[I]{}, err
	}
	return Codec[I]{Size: int(t.Size()), bools: BoolOffsets(t, 0, nil)}, nil
}

// BoolOffsets appends the byte offset of every bool in a value of type t
// placed at base.
func BoolOffsets(t reflect.Type, base uintptr, out []int) []int {
	switch t.Kind() {
	case reflect.Bool:
		return append(out, int(base))
	case reflect.Array:
		for i := range t.Len() {
			out = BoolOffsets(t.Elem(), base+uintptr(i)*t.Elem().Size(), out)
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			out = BoolOffsets(f.Type, base+f.Offset, out)
		}
	}
	return out
}

// Refuses reports whether Decode can refuse bytes: whether I holds a bool.
// Without one, every pattern of Size bytes is a value of I.
func (c *Codec[I]) Refuses() bool { return len(c.bools) > 0 }

// Append appends the bytes of in to dst.
func (c *Codec[I]) Append(dst []byte, in *I) []byte {
	return append(dst, rollback.BytesOf(in)...)
}

// Decode reads an input from the first c.Size bytes of b (which must hold
// that many). It fails with ErrBool, storing nothing, when a byte backing
// a bool is neither 0 nor 1.
func (c *Codec[I]) Decode(b []byte, out *I) error {
	b = b[:c.Size]
	for _, o := range c.bools {
		if b[o] > 1 {
			return ErrBool
		}
	}
	copy(rollback.BytesOf(out), b)
	return nil
}
