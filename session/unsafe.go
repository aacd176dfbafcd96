package session

import "unsafe"

// This is the only file of the package that imports unsafe.
//
// Why the byte view is sound: New refuses an input type I that does not
// pass rollback.CheckType, so every I the session views as bytes holds no
// pointers (the garbage collector never needs to see its words as
// pointers, and writing bytes into it cannot forge one) and has no
// compiler-inserted padding (every byte of the view belongs to a field, so
// equal values have equal bytes and the bytes are fully defined). The view
// covers exactly unsafe.Sizeof(*p) bytes of the one object p points to, so
// it never reaches past it, and it keeps the object alive while the slice
// is reachable. The session only views typed values (an I variable or an
// element of a []I) as bytes, never a []byte as an I, so alignment is the
// compiler's and the allocator's, not ours. Bytes from the network are
// copied into an I through this view only after checking that every byte
// backing a bool is 0 or 1 (see inputCodec.decode).

// bytesOf returns the bytes of *p, aliasing it: no copy, no allocation.
// I must have passed rollback.CheckType.
func bytesOf[I any](p *I) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), unsafe.Sizeof(*p))
}
