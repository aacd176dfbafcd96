// Package authority is a stub of rollnet's: the constructors' signatures
// only.
package authority

import "github.com/rollnet/rollnet/session"

type Frame = session.Frame

type HostConfig[I comparable] struct{ Players int }

type ClientConfig struct{ Players int }

type Host[S any, I comparable] struct{ s S }

func NewHost[S any, I comparable](tr any, cfg HostConfig[I], simulate func(s *S, inputs []I, frame Frame)) (*Host[S, I], error) {
	return nil, nil
}

func NewClient[S any, I comparable](tr any, cfg ClientConfig, simulate func(s *S, inputs []I, frame Frame)) (*Host[S, I], error) {
	return nil, nil
}
