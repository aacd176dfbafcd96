// Package rollnet is a stub of rollnet's root package: the shared words.
package rollnet

type Frame int32

type Rand struct{ S uint64 }

func (r *Rand) Uint64() uint64 { r.S++; return r.S }
