// Package session is a stub of rollnet's: the constructors' signatures
// only, which is all the analyzer reads.
package session

import "github.com/rollnet/rollnet"

type Config[I comparable] struct{ Players int }

type Session[S any, I comparable] struct{ s S }

func New[S any, I comparable](cfg Config[I], simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Session[S, I], error) {
	return nil, nil
}

func NewSyncTest[S any, I comparable](cfg Config[I], simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Session[S, I], error) {
	return nil, nil
}

// State returns the live state; written through before the first frame,
// it sets the initial state.
func (s *Session[S, I]) State() *S { return &s.s }

// SetInitialState sets the state frame 0 starts from.
func (s *Session[S, I]) SetInitialState(st S) error { s.s = st; return nil }
