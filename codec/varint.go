package codec

import "encoding/binary"

// Canonical varints, as the input coding's controls use them: every value has
// exactly one accepted encoding, so that anything that decodes re-encodes to
// the same bytes.

// uvarintLen is the length of the uvarint encoding of v.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// readUvarintSlow reads a minimal uvarint of more than one byte from b at i
// (the one-byte case is the caller's, by hand) and returns the value and the
// index after it. Over-long encodings and overflow are ErrMalformed, a short
// buffer ErrShort. Two bytes are read by hand, without binary.Uvarint's loop.
func readUvarintSlow(b []byte, i int) (uint64, int, error) {
	if i >= len(b) {
		return 0, i, ErrShort
	}
	if i+1 < len(b) && b[i] >= 0x80 && b[i+1] < 0x80 {
		if b[i+1] == 0 {
			return 0, i, ErrMalformed // a redundant final zero group
		}
		return uint64(b[i]&0x7f) | uint64(b[i+1])<<7, i + 2, nil
	}
	v, n := binary.Uvarint(b[i:])
	if n == 0 {
		return 0, i, ErrShort
	}
	if n < 0 || b[i+n-1] == 0 { // overflow, or a redundant final zero group
		return 0, i, ErrMalformed
	}
	return v, i + n, nil
}
