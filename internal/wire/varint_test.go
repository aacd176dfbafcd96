package wire

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

// refUvarint is readUvarint's contract spelled out with binary.Uvarint.
func refUvarint(b []byte, i int) (uint64, int, error) {
	if i >= len(b) {
		return 0, i, ErrShort
	}
	v, n := binary.Uvarint(b[i:])
	if n == 0 {
		return 0, i, ErrShort
	}
	if n < 0 || b[i+n-1] == 0 && n > 1 {
		return 0, i, ErrMalformed
	}
	return v, i + n, nil
}

// TestReadUvarint: every one-, two- and three-byte buffer (the last byte
// from a sample), read at 0 and 1, gives binary.Uvarint's value and
// length, minimal encodings only, ErrShort for a cut one.
func TestReadUvarint(t *testing.T) {
	check := func(b []byte) {
		for i := 0; i <= 1 && i <= len(b); i++ {
			v, n, err := readUvarint(b, i)
			wv, wn, werr := refUvarint(b, i)
			require.Equal(t, werr, err, "% x at %d", b, i)
			if werr == nil {
				require.Equal(t, wv, v, "% x at %d", b, i)
				require.Equal(t, wn, n, "% x at %d", b, i)
			}
		}
	}
	check(nil)
	for x := range 256 {
		check([]byte{byte(x)})
		for y := range 256 {
			check([]byte{byte(x), byte(y)})
			for _, z := range []byte{0, 1, 0x7f, 0x80, 0xff} {
				check([]byte{byte(x), byte(y), z})
			}
		}
	}
	long := binary.AppendUvarint(nil, 1<<62)
	check(long)
	check(long[:len(long)-1])
}
