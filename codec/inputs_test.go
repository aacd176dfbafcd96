package codec

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
)

func TestInputsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name  string
		base  uint32
		mask  uint32
		block []byte
	}{
		{"header only", 7, 0b11, nil},
		{"two frames two players", 41, 0b11, []byte{1, 2, 3, 4, 5, 6, 7, 8}},
		{"max values", ^uint32(0), ^uint32(0), []byte{0xff}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := AppendInputs(nil, tc.base, tc.mask, tc.block)
			require.Len(t, b, InputsHeaderLen+len(tc.block))
			base, mask, block, err := ParseInputs(b)
			require.NoError(t, err)
			require.Equal(t, tc.base, base)
			require.Equal(t, tc.mask, mask)
			require.Equal(t, len(tc.block), len(block))
			if len(tc.block) > 0 {
				require.Equal(t, tc.block, block)
				require.Same(t, &b[InputsHeaderLen], &block[0], "block must alias src")
			}
		})
	}
}

func TestInputsLayout(t *testing.T) {
	b := AppendInputs([]byte{0xAA}, 0x04030201, 0x08070605, []byte{9})
	require.Equal(t, []byte{0xAA, 1, 2, 3, 4, 5, 6, 7, 8, 9}, b)
}

func TestInputsTruncated(t *testing.T) {
	b := AppendInputs(nil, 1, 1, []byte{1, 2})
	for i := range InputsHeaderLen {
		_, _, _, err := ParseInputs(b[:i])
		require.ErrorIs(t, err, ErrShort, "prefix %d", i)
		require.True(t, errors.Is(err, io.ErrUnexpectedEOF))
	}
}

func TestInputsAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	buf := make([]byte, 0, 64)
	block := []byte{1, 2, 3, 4}
	var sink []byte
	n := allocs.Total(100, func() {
		b := AppendInputs(buf[:0], 5, 3, block)
		_, _, sink, _ = ParseInputs(b)
	})
	_ = sink
	require.Zero(t, n)
}

func FuzzParseInputs(f *testing.F) {
	f.Add(AppendInputs(nil, 7, 3, []byte{1, 2, 3, 4}))
	f.Add(AppendInputs(nil, 0, 0, nil))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		base, mask, block, err := ParseInputs(b)
		if err != nil {
			if len(b) >= InputsHeaderLen {
				t.Fatalf("ParseInputs(% x): %v", b, err)
			}
			return
		}
		if out := AppendInputs(nil, base, mask, block); !bytes.Equal(out, b) {
			t.Fatalf("re-encoding differs: % x vs % x", out, b)
		}
	})
}
