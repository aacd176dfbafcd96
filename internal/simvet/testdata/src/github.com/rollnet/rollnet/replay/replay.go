// Package replay is a stub of rollnet's: the constructors' signatures
// only.
package replay

import (
	"io"

	"github.com/rollnet/rollnet"
)

type Config struct{ Players int }

type Replayer[S any, I comparable] struct{ s S }

func NewReplayer[S any, I comparable](cfg Config, r io.Reader, simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Replayer[S, I], error) {
	return nil, nil
}

func NewRecorder[S any, I comparable](cfg Config, w io.Writer, initial *S) (*Replayer[S, I], error) {
	return nil, nil
}
