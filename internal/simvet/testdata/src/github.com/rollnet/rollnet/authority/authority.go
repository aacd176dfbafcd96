// Package authority is a stub of rollnet's: the constructors' signatures
// only.
package authority

import "github.com/rollnet/rollnet"

type HostConfig[I comparable] struct{ Players int }

type ClientConfig struct{ Players int }

type Host[S any, I comparable] struct{ s S }

func NewHost[S any, I comparable](cfg HostConfig[I], tr any, simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Host[S, I], error) {
	return nil, nil
}

func NewClient[S any, I comparable](cfg ClientConfig, tr any, simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Host[S, I], error) {
	return nil, nil
}
