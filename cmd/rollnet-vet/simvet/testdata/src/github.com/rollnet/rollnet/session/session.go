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
