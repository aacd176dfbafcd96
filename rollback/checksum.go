package rollback

import "hash/crc32"

// castagnoli is the CRC32-C table, built once. crc32.MakeTable returns the
// package's own Castagnoli table, which makes crc32.Checksum take the
// hardware-accelerated path (SSE4.2 on amd64, CRC32 instructions on arm64).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checksum returns the CRC32-C (Castagnoli) of b. Every checksum in this
// package is this function over the exact bytes of a state.
func Checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
