package codec

import "encoding/binary"

var le = binary.LittleEndian

// The input coding: bytes XORed against the byte one stride (one frame)
// earlier, then cut into zero runs and literals. The package comment gives
// the layout; AppendRLE, RLELen and DecodeRLE are the exported forms.

// rleLen is the coded size of in: the walk of appendRLE, counting.
func rleLen(in []byte, stride int) int {
	n := 0
	lit := -1 // length of the open literal, -1 when none
	z := 0    // zeros seen and not yet coded
	for i := 0; i < len(in); {
		w, k := xorWord(in, i, stride)
		i += k
		if w == 0 {
			z += k
			continue
		}
		if k == 8 && z == 0 && lit >= 0 && zeroBytes(w) == 0 {
			lit += 8
			continue
		}
		for ; k > 0; k-- {
			x := byte(w)
			w >>= 8
			if x == 0 {
				z++
				continue
			}
			switch {
			case z >= 2:
				if lit >= 0 {
					n += literalLen(lit)
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
	}
	switch {
	case z >= 2:
		if lit >= 0 {
			n += literalLen(lit)
		}
		n += uvarintLen(uint64(z-2) << 1)
	case lit >= 0 || z == 1:
		n += literalLen(max(lit, 0) + z)
	}
	return n
}

// literalLen is the coded size of a literal of l bytes.
func literalLen(l int) int { return uvarintLen(uint64(l-1)<<1|1) + l }

// appendRLE appends the coding of in to b in one pass: literal bytes are
// written as they come after a one-byte placeholder for their control, which
// is patched (and, past 64 bytes, widened) when the literal closes. The XORed
// stream is read eight bytes at a time: a word of zeros (held inputs) or of
// no zeros (changing inputs inside a literal) costs one step.
//
// A stride of len(in) or more is a single frame, nothing XORed (a state
// body's delta and inputs): its words are read as they are.
func appendRLE(b, in []byte, stride int) []byte {
	if n := len(in); n <= 8 && n > 0 {
		// A few bytes (a frame or two of small inputs): one word. With no
		// two zeros in a row it is one literal (a zero at either end is
		// at the stream's edge).
		w := shortWord(in)
		if stride < n {
			w ^= w << (8 * stride)
		}
		if zb := zeroBytes(w) & lowBytes(n); zb&(zb<<8) == 0 {
			return appendWord(append(b, byte(n-1)<<1|1), w, n)
		}
	}
	open := -1 // index in b of the open literal's control byte, -1 when none
	z := 0     // zeros seen and not yet coded
	plain := stride >= len(in)
	for i := 0; i < len(in); {
		var w uint64
		k := 8
		if len(in)-i >= 8 && plain {
			w = le.Uint64(in[i:])
		} else if len(in)-i >= 8 && i >= stride { // xorWord's common case, by hand
			w = le.Uint64(in[i:]) ^ le.Uint64(in[i-stride:])
		} else {
			w, k = xorWord(in, i, stride)
		}
		i += k
		if w == 0 {
			z += k
			continue
		}
		if k == 8 && z == 0 && open >= 0 && zeroBytes(w) == 0 {
			b = le.AppendUint64(b, w) // inside a literal, no zeros: take the word whole
			continue
		}
		for ; k > 0; k-- {
			x := byte(w)
			w >>= 8
			if x == 0 {
				z++
				continue
			}
			switch {
			case z >= 2:
				if l := len(b) - open - 1; open >= 0 && l <= 64 {
					b[open] = byte(l-1)<<1 | 1 // closeLiteral's common case
				} else if open >= 0 {
					b = closeLiteral(b, open)
				}
				if z <= 65 {
					b = append(b, byte(z-2)<<1)
				} else {
					b = binary.AppendUvarint(b, uint64(z-2)<<1)
				}
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

// xorWord returns up to eight bytes of the XORed stream from i, little-endian
// in w, and how many (eight unless the stream ends sooner).
func xorWord(in []byte, i, stride int) (w uint64, k int) {
	if len(in)-i >= 8 {
		w = le.Uint64(in[i:])
		switch {
		case i >= stride:
			w ^= le.Uint64(in[i-stride:])
		case i+8 > stride: // the word straddles the end of the first frame
			w ^= le.Uint64(in) << (8 * (stride - i))
		}
		return w, 8
	}
	// The last bytes, fewer than eight: read whole (shortWord), XORed with
	// the bytes a frame earlier, read whole too or shifted in.
	k = len(in) - i
	w = shortWord(in[i:])
	switch {
	case i >= stride:
		w ^= shortWord(in[i-stride : len(in)-stride])
	case i == 0 && stride < k: // a stream of a few bytes, whole
		w ^= w << (8 * stride)
		w &= 1<<(8*k) - 1
	case i+k > stride: // the earlier frame straddles i: byte by byte
		for j := stride - i; j < k; j++ {
			w ^= uint64(in[i+j-stride]) << (8 * j)
		}
	}
	return w, k
}

// shortWord returns the bytes of b, at most eight, little-endian: two
// overlapping loads for four bytes or more (or two), not a loop.
func shortWord(b []byte) uint64 {
	switch n := len(b); {
	case n >= 8:
		return le.Uint64(b)
	case n >= 4:
		return uint64(le.Uint32(b)) | uint64(le.Uint32(b[n-4:]))<<(8*(n-4))
	case n >= 2:
		return uint64(le.Uint16(b)) | uint64(le.Uint16(b[n-2:]))<<(8*(n-2))
	case n == 1:
		return uint64(b[0])
	}
	return 0
}

// lowBytes is the mask of the low k bytes of a word, k in [1, 8].
func lowBytes(k int) uint64 { return ^uint64(0) >> (64 - 8*k) }

// appendWord appends the low k bytes of w (k in [1, 8]), little-endian.
func appendWord(b []byte, w uint64, k int) []byte {
	if k == 8 {
		return le.AppendUint64(b, w)
	}
	n := len(b)
	if cap(b)-n < k {
		for ; k > 0; k-- {
			b = append(b, byte(w))
			w >>= 8
		}
		return b
	}
	b = b[:n+k]
	putShortWord(b[n:], w)
	return b
}

// putShortWord writes the low len(b) bytes of w (at most eight) into b,
// little-endian: shortWord's inverse, two overlapping stores (which write
// the same bytes where they overlap) for four bytes or more (or two).
func putShortWord(b []byte, w uint64) {
	switch n := len(b); {
	case n >= 8:
		le.PutUint64(b, w)
	case n >= 4:
		le.PutUint32(b[n-4:], uint32(w>>(8*(n-4))))
		le.PutUint32(b, uint32(w))
	case n >= 2:
		le.PutUint16(b[n-2:], uint16(w>>(8*(n-2))))
		le.PutUint16(b, uint16(w))
	case n == 1:
		b[0] = byte(w)
	}
}

// zeroBytes has the high bit set in every byte of w that is zero, and only
// there.
func zeroBytes(w uint64) uint64 {
	const lo7 = 0x7f7f7f7f7f7f7f7f
	return ^((w&lo7 + lo7) | w | lo7)
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

// DecodeRLE decodes len(out) bytes coded by AppendRLE with the same stride
// from the start of b into out and returns how many bytes of b it read; bytes
// after the coding are left for the caller. A coding that is not canonical,
// or that decodes to more than len(out) bytes, is ErrMalformed; b ending
// before out is full is an error wrapping ErrShort. On error n is 0 and out
// holds garbage. It never allocates.
func DecodeRLE(b, out []byte, stride int) (n int, err error) {
	stride = frameStride(stride)
	i := 0
	const (
		none = iota
		run
		literal
	)
	if n := len(out); n <= 8 && n > 0 && stride > 0 && i < len(b) && b[i] == byte(n-1)<<1|1 && len(b)-i > n {
		// One literal of the whole stream, a few bytes (appendRLE's one
		// word): undo the XOR on the word, each byte XORed with the one a
		// stride earlier once decoded, in doubling steps.
		w := shortWord(b[i+1 : i+1+n])
		if zb := zeroBytes(w) & lowBytes(n); zb&(zb<<8) != 0 {
			return 0, ErrMalformed // two zeros in a row belong in a run
		}
		for s := stride; s < n; s *= 2 {
			w ^= w << (8 * s)
		}
		putShortWord(out, w)
		return i + 1 + n, nil
	}
	prev := none
	lastZero := false // the last byte of the previous literal is zero
	for pos := 0; pos < len(out); {
		var c uint64
		if i < len(b) && b[i] < 0x80 { // readUvarint's fast path, by hand: it does not inline
			c = uint64(b[i])
			i++
		} else {
			if c, i, err = readUvarintSlow(b, i); err != nil {
				return 0, err
			}
		}
		left := uint64(len(out) - pos)
		if c&1 == 0 {
			l := c>>1 + 2
			if prev == run || (prev == literal && lastZero) || l > left {
				return 0, ErrMalformed
			}
			end := pos + int(l)
			if pos < stride { // the first frame is XORed against zero
				z := min(end, stride)
				clear(out[pos:z])
				pos = z
			}
			// Each byte repeats the one a frame earlier.
			if end-pos <= 16 { // short runs: bytes beat a call to memmove
				for ; pos < end; pos++ {
					out[pos] = out[pos-stride]
				}
			} else { // copy from a frame before the run, doubling the span (whole frames)
				for from := pos - stride; pos < end; {
					pos += copy(out[pos:end], out[from:pos])
				}
			}
			prev = run
			continue
		}
		l := c>>1 + 1
		if prev == literal || l > left {
			return 0, ErrMalformed
		}
		if uint64(len(b)-i) < l {
			return 0, ErrShort
		}
		lit := b[i : i+int(l)]
		zero := prev == run // a zero here would extend the run before
		dst := out[pos : pos+len(lit)]
		for k, x := range lit {
			if x == 0 {
				if zero { // two zeros in a row belong in a run
					return 0, ErrMalformed
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
