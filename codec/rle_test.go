package codec

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// referenceRLE is the coding written the obvious way, byte by byte, from its
// definition: XOR against the byte a stride earlier, then maximal zero runs
// of two or more, literals between them.
func referenceRLE(in []byte, stride int) []byte {
	x := make([]byte, len(in))
	for i := range in {
		x[i] = in[i]
		if i >= stride {
			x[i] ^= in[i-stride]
		}
	}
	var b []byte
	for i := 0; i < len(x); {
		j := i
		for j < len(x) && x[j] == 0 {
			j++
		}
		if j-i >= 2 {
			b = binary.AppendUvarint(b, uint64(j-i-2)<<1)
			i = j
			continue
		}
		j = i + 1
		for j < len(x) && !(x[j] == 0 && j+1 < len(x) && x[j+1] == 0) {
			j++
		}
		b = binary.AppendUvarint(b, uint64(j-i-1)<<1|1)
		b = append(b, x[i:j]...)
		i = j
	}
	return b
}

// The fast coder (word at a time, patched literal controls) agrees with the
// reference on every length, stride and mix of held, changing and zero bytes;
// rleLen agrees with both; the decoder inverts it.
func TestRLEMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	out := make([]byte, 4096)
	for n := range 4000 {
		length := n % 300
		if n%50 == 0 {
			length = rng.IntN(4096)
		}
		stride := rng.IntN(40) + 1
		held, zero := rng.Float64(), rng.Float64()
		in := make([]byte, length)
		for i := range in {
			switch r := rng.Float64(); {
			case i >= stride && r < held:
				in[i] = in[i-stride]
			case r-held < zero*(1-held):
				in[i] = 0
			default:
				in[i] = byte(rng.IntN(255) + 1)
			}
		}
		want := referenceRLE(in, stride)
		got := appendRLE([]byte{0xAA}, in, stride)
		require.Equal(t, byte(0xAA), got[0])
		require.Equal(t, want, got[1:], "len %d stride %d in % x", length, stride, in)
		require.Equal(t, len(want), rleLen(in, stride))
		require.LessOrEqual(t, len(want), length+1+length/64, "the bound safeInputs relies on")
		dec := out[:length]
		n, err := DecodeRLE(got[1:], dec, stride)
		require.NoError(t, err)
		require.Equal(t, len(got)-1, n)
		require.Equal(t, in, dec)
	}
}

// FuzzRLE checks the encoder side: for any stream and stride, the fast coder
// matches the reference, rleLen matches both, and decoding inverts it.
func FuzzRLE(f *testing.F) {
	f.Add([]byte{1, 2, 1, 2, 1, 2, 1, 2}, uint8(2))
	f.Add([]byte{0, 0, 1, 0, 0, 0, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5}, uint8(3))
	f.Add(changingInputs(70), uint8(2))
	f.Fuzz(func(t *testing.T, in []byte, stride uint8) {
		s := int(stride)%64 + 1
		want := referenceRLE(in, s)
		got := appendRLE(nil, in, s)
		if string(got) != string(want) {
			t.Fatalf("stride %d in % x: got % x want % x", s, in, got, want)
		}
		if n := rleLen(in, s); n != len(want) {
			t.Fatalf("rleLen %d, coded %d", n, len(want))
		}
		if len(want) > len(in)+1+len(in)/64 {
			t.Fatalf("coding of %d bytes takes %d, past the bound safeInputs relies on", len(in), len(want))
		}
		out := make([]byte, len(in))
		i, err := DecodeRLE(got, out, s)
		if err != nil || i != len(got) || string(out) != string(in) {
			t.Fatalf("decode: %v, %d of %d, % x", err, i, len(got), out)
		}
	})
}

// TestXorWord: xorWord's word is the XORed stream's bytes from i (each
// byte XORed with the one stride earlier, the first frame with zero), at
// every i of every stream up to 24 bytes, every stride up to 26.
func TestXorWord(t *testing.T) {
	in := make([]byte, 24)
	for j := range in {
		in[j] = byte(j*37 + 11)
	}
	for n := 0; n <= len(in); n++ {
		for stride := 1; stride <= 26; stride++ {
			for i := 0; i < n; i++ {
				var want uint64
				k := min(n-i, 8)
				for j := range k {
					x := in[i+j]
					if i+j >= stride {
						x ^= in[i+j-stride]
					}
					want |= uint64(x) << (8 * j)
				}
				w, gotK := xorWord(in[:n], i, stride)
				require.Equal(t, k, gotK, "n %d stride %d i %d", n, stride, i)
				require.Equal(t, want, w, "n %d stride %d i %d", n, stride, i)
			}
		}
	}
}

// changingInputs is one player's 2-byte input changing (both bytes) every frame.
func changingInputs(n int) []byte {
	b := make([]byte, 2*n)
	for f := range n {
		b[2*f], b[2*f+1] = byte(f+1), byte(0x80|f)
	}
	return b
}
