package codec

import "math"

// AppendRLE appends the coding of in to b and returns the extended slice. in
// is frames of stride bytes each, oldest first (the last frame may be cut
// short). Each byte is XORed with the byte one stride earlier (the first
// frame with zero), so a held input codes as zeros, and the result is cut
// into zero runs and literals; see the package comment for the layout. A
// stride below 1, or of len(in) or more, codes in as one frame, nothing
// XORed. It allocates nothing when b has room for RLELen(in, stride) bytes,
// which is at most len(in) + 1 + len(in)/64.
func AppendRLE(b, in []byte, stride int) []byte {
	return appendRLE(b, in, frameStride(stride))
}

// RLELen is the length of AppendRLE's coding of in, without coding it.
func RLELen(in []byte, stride int) int {
	return rleLen(in, frameStride(stride))
}

// frameStride maps a stride below 1 to "one frame": no byte has a byte one
// stride before it.
func frameStride(stride int) int {
	if stride < 1 {
		return math.MaxInt
	}
	return stride
}
