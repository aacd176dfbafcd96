package codec

import "encoding/binary"

var le = binary.LittleEndian

// The input coding: bytes XORed against the byte one stride (one frame)
// earlier, then cut into zero runs and literals. See Input for the layout.

// rleLen is the coded size of in: the same walk as appendRLE, counting.
func rleLen(in []byte, stride int) int {
	n := 0
	lit := -1 // length of the open literal, -1 when none
	z := 0    // zeros seen and not yet coded
	for i := 0; i < len(in); {
		x := in[i]
		if i >= stride {
			if z > 0 && len(in)-i >= 8 && le.Uint64(in[i:]) == le.Uint64(in[i-stride:]) {
				z += 8
				i += 8
				continue
			}
			x ^= in[i-stride]
		}
		i++
		if x == 0 {
			z++
			continue
		}
		switch {
		case z >= 2:
			if lit >= 0 {
				n += uvarintLen(uint64(lit-1)<<1|1) + lit
			}
			n += uvarintLen(uint64(z-2) << 1)
			lit = 0
		case lit < 0:
			lit = z
		default:
			lit += z
		}
		lit++
		z = 0
	}
	switch {
	case z >= 2:
		if lit >= 0 {
			n += uvarintLen(uint64(lit-1)<<1|1) + lit
		}
		n += uvarintLen(uint64(z-2) << 1)
	case lit >= 0 || z == 1:
		lit = max(lit, 0) + z
		n += uvarintLen(uint64(lit-1)<<1|1) + lit
	}
	return n
}

// appendRLE appends the coding of in to b in one pass: literal bytes are
// written as they come after a one-byte placeholder for their control, which
// is patched (and, past 64 bytes, widened) when the literal closes.
func appendRLE(b, in []byte, stride int) []byte {
	open := -1 // index in b of the open literal's control byte, -1 when none
	z := 0     // zeros seen and not yet coded
	for i := 0; i < len(in); {
		x := in[i]
		if i >= stride {
			if z > 0 && len(in)-i >= 8 && le.Uint64(in[i:]) == le.Uint64(in[i-stride:]) {
				z += 8 // held inputs: skip eight unchanged bytes at once
				i += 8
				continue
			}
			x ^= in[i-stride]
		}
		i++
		if x == 0 {
			z++
			continue
		}
		switch {
		case z >= 2:
			if open >= 0 {
				b = closeLiteral(b, open)
			}
			b = binary.AppendUvarint(b, uint64(z-2)<<1)
			open = len(b)
			b = append(b, 0)
		case open < 0:
			open = len(b)
			if z == 1 {
				b = append(b, 0, 0)
			} else {
				b = append(b, 0)
			}
		case z == 1:
			b = append(b, 0)
		}
		b = append(b, x)
		z = 0
	}
	switch {
	case z >= 2:
		if open >= 0 {
			b = closeLiteral(b, open)
		}
		b = binary.AppendUvarint(b, uint64(z-2)<<1)
	case open >= 0 || z == 1:
		if open < 0 {
			open = len(b)
			b = append(b, 0)
		}
		if z == 1 {
			b = append(b, 0)
		}
		b = closeLiteral(b, open)
	}
	return b
}

// closeLiteral writes the control of the literal whose placeholder is at
// b[open] and whose bytes follow to the end of b.
func closeLiteral(b []byte, open int) []byte {
	l := len(b) - open - 1
	c := uint64(l-1)<<1 | 1
	if c < 0x80 {
		b[open] = byte(c)
		return b
	}
	w := uvarintLen(c)
	n := len(b)
	for range w - 1 {
		b = append(b, 0)
	}
	copy(b[open+w:], b[open+1:n])
	binary.PutUvarint(b[open:], c)
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
			if pos < stride { // the first frame is XORed against zero
				z := min(end, stride)
				clear(out[pos:z])
				pos = z
			}
			// Each byte repeats the one a frame earlier: copy from a frame
			// before the run, doubling the span, which stays a whole number
			// of frames.
			for from := pos - stride; pos < end; {
				pos += copy(out[pos:end], out[from:pos])
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
		zero := prev == run // a zero here would extend the run before
		dst := out[pos : pos+len(lit)]
		for k, x := range lit {
			if x == 0 {
				if zero { // two zeros in a row belong in a run
					return i, ErrMalformed
				}
				zero = true
			} else {
				zero = false
			}
			if pos+k >= stride {
				x ^= out[pos+k-stride]
			}
			dst[k] = x
		}
		pos += len(lit)
		lastZero = zero
		i += len(lit)
		prev = literal
	}
	return i, nil
}
