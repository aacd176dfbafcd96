package session

import (
	"fmt"
	"reflect"

	"github.com/rollnet/rollnet/rollback"
)

// inputCodec converts inputs of type I to and from their bytes without
// allocating. The bytes are the value's memory layout (little-endian on
// every platform rollnet targets), InputSize() long.
type inputCodec[I comparable] struct {
	size  int   // unsafe.Sizeof(I)
	bools []int // byte offsets of every bool inside I, for decode's check
}

// newInputCodec checks I (pointer-free, gap-free, fixed-width, not
// zero-size) and records where its bools live.
func newInputCodec[I comparable]() (inputCodec[I], error) {
	t := reflect.TypeFor[I]()
	if err := rollback.CheckType(t); err != nil {
		return inputCodec[I]{}, fmt.Errorf("%w: input type: %w", ErrConfig, err)
	}
	return inputCodec[I]{size: int(t.Size()), bools: boolOffsets(t, 0, nil)}, nil
}

// boolOffsets appends the byte offset of every bool in a value of type t
// placed at base.
func boolOffsets(t reflect.Type, base uintptr, out []int) []int {
	switch t.Kind() {
	case reflect.Bool:
		return append(out, int(base))
	case reflect.Array:
		for i := range t.Len() {
			out = boolOffsets(t.Elem(), base+uintptr(i)*t.Elem().Size(), out)
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			out = boolOffsets(f.Type, base+f.Offset, out)
		}
	}
	return out
}

// append appends the bytes of in to dst.
func (c *inputCodec[I]) append(dst []byte, in *I) []byte {
	return append(dst, bytesOf(in)...)
}

// decode reads an input from the first c.size bytes of b (which must hold
// that many). It fails with ErrMalformed, storing nothing, when a byte
// backing a bool is neither 0 nor 1: such a value is not a Go bool.
func (c *inputCodec[I]) decode(b []byte, out *I) error {
	b = b[:c.size]
	for _, o := range c.bools {
		if b[o] > 1 {
			return ErrMalformed
		}
	}
	copy(bytesOf(out), b)
	return nil
}

// InputSize returns the size of one input in bytes: the size of I, which
// is how many bytes each player's slot takes in PackInputs' frames.
func (s *Session[S, I]) InputSize() int { return s.codec.size }
