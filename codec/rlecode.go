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

// DecodeRLE decodes len(out) bytes coded by AppendRLE with the same stride
// from the start of b into out and returns how many bytes of b it read; bytes
// after the coding are left for the caller. A coding that is not canonical,
// or that decodes to more than len(out) bytes, is ErrMalformed; b ending
// before out is full is an error wrapping ErrShort. On error n is 0 and out
// holds garbage. It never allocates.
func DecodeRLE(b, out []byte, stride int) (n int, err error) {
	n, err = decodeRLE(b, 0, out, frameStride(stride))
	if err != nil {
		return 0, err
	}
	return n, nil
}

// frameStride maps a stride below 1 to "one frame": no byte has a byte one
// stride before it.
func frameStride(stride int) int {
	if stride < 1 {
		return math.MaxInt
	}
	return stride
}
