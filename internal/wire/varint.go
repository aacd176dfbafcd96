package wire

import (
	"encoding/binary"
	"math"

	"github.com/rollnet/rollnet/codec"
)

var le = binary.LittleEndian

// Canonical varints: every value has exactly one accepted encoding, so that
// anything that parses re-encodes to the same bytes.

// uvarintLen is the length of the uvarint encoding of v.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// readUvarint reads a minimal uvarint from b at i and returns the value and
// the index after it. Over-long encodings and overflow are ErrMalformed, a
// short buffer ErrShort. The one-byte case is inlined.
func readUvarint(b []byte, i int) (uint64, int, error) {
	if i < len(b) && b[i] < 0x80 {
		return uint64(b[i]), i + 1, nil
	}
	return readUvarintSlow(b, i)
}

// readUvarintSlow is readUvarint past one byte. Two bytes (a frame number
// up to 16,383) are read by hand, without binary.Uvarint's loop.
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

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// Frame fields that may be -1 ("none") travel as uvarint(uint32(f)+1), so that
// -1 costs one byte; the mapping is a bijection on int32.

func appendFrame(b []byte, f int32) []byte {
	return binary.AppendUvarint(b, uint64(uint32(f)+1))
}

func frameLen(f int32) int { return uvarintLen(uint64(uint32(f) + 1)) }

func readFrame(b []byte, i int) (int32, int, error) {
	v, i, err := readUvarint(b, i)
	if err != nil {
		return 0, i, err
	}
	if v > math.MaxUint32 {
		return 0, i, ErrMalformed
	}
	return int32(uint32(v) - 1), i, nil
}

// Signed 32-bit fields travel zigzag coded.

func appendInt32(b []byte, v int32) []byte { return binary.AppendUvarint(b, zigzag(int64(v))) }

func int32Len(v int32) int { return uvarintLen(zigzag(int64(v))) }

func readInt32(b []byte, i int) (int32, int, error) {
	u, i, err := readUvarint(b, i)
	if err != nil {
		return 0, i, err
	}
	v := unzigzag(u)
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, i, ErrMalformed
	}
	return int32(v), i, nil
}

// end checks a message was consumed exactly: trailing bytes are ErrMalformed,
// since every parse takes the whole packet.
func end(b []byte, i int) (int, error) {
	if i != len(b) {
		return 0, ErrMalformed
	}
	return i, nil
}

// The inputs of Input and AuthInput, and a state body's bytes, are codec's
// XOR and run-length coding.

func rleLen(in []byte, stride int) int { return codec.RLELen(in, stride) }

func appendRLE(b, in []byte, stride int) []byte { return codec.AppendRLE(b, in, stride) }

// decodeRLE decodes len(out) bytes of coding from b at i into out and returns
// the index after them.
func decodeRLE(b []byte, i int, out []byte, stride int) (int, error) {
	n, err := codec.DecodeRLE(b[i:], out, stride)
	return i + n, err
}
