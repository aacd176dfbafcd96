// Package session is a stub of rollnet's: the constructors' signatures
// only, which is all the analyzer reads.
package session

import "io"

type Frame int32

type Rand struct{ S uint64 }

func (r *Rand) Uint64() uint64 { r.S++; return r.S }

type Config[I comparable] struct{ Players int }

type Session[S any, I comparable] struct{ s S }

func New[S any, I comparable](cfg Config[I], simulate func(s *S, inputs []I, frame Frame)) (*Session[S, I], error) {
	return nil, nil
}

func NewSyncTest[S any, I comparable](cfg Config[I], simulate func(s *S, inputs []I, frame Frame)) (*Session[S, I], error) {
	return nil, nil
}

func NewP2P[S any, I comparable](cfg Config[I], t any, simulate func(*S, []I, Frame)) (*Session[S, I], error) {
	return nil, nil
}

func NewSpectator[S any, I comparable](cfg Config[I], t any, simulate func(*S, []I, Frame)) (*Session[S, I], error) {
	return nil, nil
}

func NewReplayer[S any, I comparable](r io.Reader, cfg Config[I], simulate func(s *S, inputs []I, frame Frame)) (*Session[S, I], error) {
	return nil, nil
}

func NewRecorder[S any, I comparable](w io.Writer, cfg Config[I], initial *S) (*Session[S, I], error) {
	return nil, nil
}
