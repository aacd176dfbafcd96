package rollback

import "unsafe"

// This is the only file of the package that imports unsafe.
//
// Why the byte view is sound: BytesOf is only applied (by this package) to
// values of types that passed CheckType. Such a type holds no pointers, so
// the garbage collector never needs to see its words as pointers and
// reading or writing them as bytes cannot hide or forge a pointer. It has
// no compiler-inserted padding, so every byte of the view is a byte of some
// field, written by ordinary assignments: the view has no undefined bytes
// and two equal values have equal views (the checksum is a function of the
// value). The view covers exactly unsafe.Sizeof(*p) bytes of one object, so
// it never reaches past the allocation, and it keeps p's object alive as
// long as the slice is reachable. Typed storage ([]T) is always allocated as
// []T and only viewed as bytes, never the reverse, so alignment of T is the
// allocator's, not ours.

// BytesOf returns the bytes of *p, aliasing it (no copy, no allocation).
// Writes through the slice change *p.
//
// T must satisfy CheckType; BytesOf does not check it, because it is meant
// for hot paths. Viewing a type with pointers and writing through the view
// would corrupt the garbage collector's view of memory. The byte values are
// those of the platform's memory layout (little-endian on every platform
// rollnet targets).
func BytesOf[T any](p *T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), unsafe.Sizeof(*p))
}

// bulkCopyMin is the state size from which Ring copies states with memmove.
const bulkCopyMin = 512

// bulk reports whether states of type T are copied with memmove over their
// byte views rather than by assignment. unsafe.Sizeof of a type parameter
// is fixed for each instantiation, so a call folds to a constant and the
// branch on it disappears. Sizeof does not evaluate its operand: no value
// of T is made (a `var z T` here was moved to the heap for a 1 MiB T and
// allocated on every Commit).
func bulk[T any]() bool {
	var p *T
	return unsafe.Sizeof(*p) >= bulkCopyMin
}
