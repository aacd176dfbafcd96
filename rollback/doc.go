// Package rollback holds the state ring of rollback netcode: the live game
// state plus a fixed, power-of-two ring of snapshots of it, so a session can
// restore the state of an earlier frame and re-simulate.
//
// Ring[T] stores a typed state; Bytes stores a state whose size is known
// only at run time. Both keep the live state and every slot in one
// allocation made at construction. After that, Live, Commit, Rollback,
// Peek, Depth, Capacity, Reset, Checksum and ChecksumAt never allocate:
// Commit and Rollback are one memory copy each, Peek is an index.
//
// A state type T must be pointer-free and gap-free with fixed-width fields
// (CheckType states the rules): bool, int8…int64, uint8…uint64, floats,
// complex numbers, and arrays and structs of them; no int, uint, uintptr,
// pointers, slices, maps, strings, channels, funcs or interfaces; no padding
// the compiler inserts (write it out as `_ [N]byte` and keep it zero); not
// zero-size. New refuses any other type with an error naming the field.
//
// Checksums are CRC32-C (Castagnoli) over the exact bytes of the state in
// memory, so they are comparable between peers on platforms of the same
// byte order; rollnet documents them as little-endian-platform values
// (amd64, arm64, wasm, riscv64 …).
//
// Indexing: Peek(0) is the newest commit, Peek(Depth()-1) the oldest held.
// Rollback(n) makes the live state equal to Peek(n) and discards the n
// newer commits, so afterwards Peek(0) is the restored commit.
//
// The only unsafe code, the byte view of a typed state, is in unsafe.go
// with the argument that it is sound.
package rollback
