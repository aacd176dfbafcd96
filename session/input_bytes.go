package session

import (
	"fmt"

	"github.com/rollnet/rollnet/internal/inputbytes"
)

// inputCodec converts inputs of type I to and from their bytes without
// allocating (inputbytes.Codec, with the session's errors).
type inputCodec[I comparable] struct {
	size int // unsafe.Sizeof(I)
	c    inputbytes.Codec[I]
}

// newInputCodec checks I (pointer-free, gap-free, fixed-width, not
// zero-size) and records where its bools live.
func newInputCodec[I comparable]() (inputCodec[I], error) {
	c, err := inputbytes.New[I]()
	if err != nil {
		return inputCodec[I]{}, fmt.Errorf("%w: input type: %w", errConfig, err)
	}
	return inputCodec[I]{size: c.Size, c: c}, nil
}

// append appends the bytes of in to dst.
func (c *inputCodec[I]) append(dst []byte, in *I) []byte { return c.c.Append(dst, in) }

// decode reads an input from the first c.size bytes of b (which must hold
// that many). It fails with ErrMalformed, storing nothing, when a byte
// backing a bool is neither 0 nor 1: such a value is not a Go bool.
func (c *inputCodec[I]) decode(b []byte, out *I) error {
	if c.c.Decode(b, out) != nil {
		return ErrMalformed
	}
	return nil
}

// inputSize returns the size of one input in bytes: the size of I, which
// is how many bytes each player's slot takes in PackInputs' frames.
func (s *Session[S, I]) inputSize() int { return s.codec.size }
