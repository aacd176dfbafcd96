// Package p2p is a stub of rollnet's: the constructors' signatures only,
// which is all the analyzer reads.
package p2p

import "github.com/rollnet/rollnet"

type Config[I comparable] struct{ Players int }

type Session[S any, I comparable] struct{ s S }

func New[S any, I comparable](cfg Config[I], t any, simulate func(*S, []I, rollnet.Frame)) (*Session[S, I], error) {
	return nil, nil
}

func NewSpectator[S any, I comparable](cfg Config[I], t any, simulate func(*S, []I, rollnet.Frame)) (*Session[S, I], error) {
	return nil, nil
}
