package codec

import "encoding/binary"

// The input coding: bytes XORed against the byte one stride (one frame)
// earlier, then cut into zero runs and literals. See Input for the layout.

// xorAt is byte i of the XORed stream.
func xorAt(in []byte, i, stride int) byte {
	if i < stride {
		return in[i]
	}
	return in[i] ^ in[i-stride]
}

// nextToken returns the end of the token that starts at i, and whether it is
// a zero run. Runs are maximal runs of two zeros or more; a literal extends
// until the next such run or the end of the stream.
func nextToken(in []byte, stride, i int) (run bool, j int) {
	n := len(in)
	j = i
	for j < n && xorAt(in, j, stride) == 0 {
		j++
	}
	if j-i >= 2 {
		return true, j
	}
	j = i + 1
	for j < n && (xorAt(in, j, stride) != 0 || j+1 == n || xorAt(in, j+1, stride) != 0) {
		j++
	}
	return false, j
}

// rleLen is the coded size of in.
func rleLen(in []byte, stride int) int {
	n := 0
	for i := 0; i < len(in); {
		run, j := nextToken(in, stride, i)
		if run {
			n += uvarintLen(uint64(j-i-2) << 1)
		} else {
			n += uvarintLen(uint64(j-i-1)<<1|1) + j - i
		}
		i = j
	}
	return n
}

// appendRLE appends the coding of in to b.
func appendRLE(b, in []byte, stride int) []byte {
	for i := 0; i < len(in); {
		run, j := nextToken(in, stride, i)
		if run {
			b = binary.AppendUvarint(b, uint64(j-i-2)<<1)
		} else {
			b = binary.AppendUvarint(b, uint64(j-i-1)<<1|1)
			o := len(b)
			b = append(b, in[i:j]...)
			for k := max(i, stride); k < j; k++ {
				b[o+k-i] ^= in[k-stride]
			}
		}
		i = j
	}
	return b
}

// decodeRLE decodes len(out) bytes of coded inputs from b at i into out,
// undoing the XOR, and returns the index after them. Non-canonical codings
// and runs past the end of out are ErrMalformed.
func decodeRLE(b []byte, i int, out []byte, stride int) (int, error) {
	const (
		none = iota
		run
		literal
	)
	prev := none
	lastZero := false // the last byte of the previous literal is zero
	for pos := 0; pos < len(out); {
		c, next, err := readUvarint(b, i)
		if err != nil {
			return i, err
		}
		i = next
		left := uint64(len(out) - pos)
		if c&1 == 0 {
			l := c>>1 + 2
			if prev == run || (prev == literal && lastZero) || l > left {
				return i, ErrMalformed
			}
			end := pos + int(l)
			for ; pos < end && pos < stride; pos++ {
				out[pos] = 0
			}
			for pos < end { // copy a whole number of earlier frames at a time
				pos += copy(out[pos:end], out[pos-stride:pos])
			}
			prev = run
			continue
		}
		l := c>>1 + 1
		if prev == literal || l > left {
			return i, ErrMalformed
		}
		if uint64(len(b)-i) < l {
			return i, ErrShort
		}
		lit := b[i : i+int(l)]
		if prev == run && lit[0] == 0 {
			return i, ErrMalformed
		}
		for k := 1; k < len(lit); k++ {
			if lit[k] == 0 && lit[k-1] == 0 {
				return i, ErrMalformed
			}
		}
		lastZero = lit[len(lit)-1] == 0
		for _, x := range lit {
			if pos >= stride {
				x ^= out[pos-stride]
			}
			out[pos] = x
			pos++
		}
		i += len(lit)
		prev = literal
	}
	return i, nil
}
