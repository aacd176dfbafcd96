package wire

import "math/bits"

// The coding of a state body's Data (body version 4, authority protocol
// 6): an adaptive binary range coder (the LZMA coder's arithmetic: 11-bit
// probabilities, 32-bit range, carry through a cached byte) over a model
// of a sparse XOR delta, reset for every body, so a body decodes alone.
//
// A first bit, at fixed odds of 1 in 2048, says the Data is coded raw
// instead (each byte as eight bits at even odds): an encoder does so when
// the model would pass the Data's length by more than rawSlack bytes,
// which bounds a body. The model walks the nonzero bytes of Data in order. Before each it codes
// a bit "more" (1: a nonzero byte follows; 0: the rest is zeros); then the
// gap g, the zero bytes since the previous nonzero byte (or the start),
// Elias-gamma coded: k = the bit length of g+1 less one, in unary (k ones
// then a zero, each bit its own probability), then the top bit below the
// leading one with a probability per k, then the other k-1 bits at even
// odds; then the byte x: its bit length less one (0..7) as a three-bit
// tree of probabilities, then the bits below its leading one at even
// odds (up to seven bits at a time: the range cut into 2^k equal parts).
// The probabilities of "more" and of the tree are kept apart for a
// byte right after a nonzero byte (the rest of a changed word) and for
// one after a gap. Every probability starts at one half and moves an
// eighth of the way to each bit it codes (rangeShift).
//
// The stream is what the coder emits, its first byte (always zero) left
// out and its end chosen to leave as many zero bytes as it can, which are
// not sent: a decoder reads zeros past the end. A stream coded by the model is canonical (one
// stream for one Data; a raw stream is accepted even where the encoder
// would have used the model): its last byte is not zero, the decoder reads
// every byte of it, the code never leaves the range, and it ends on the
// value of the final range with the most trailing zero bits.
//
// Why: a state coded against the previous one sent carries a few changed
// bytes spread over the state, and each costs the position's information
// (about the logarithm of the gap, in bits) and a few bits of value, where
// the run-length coding spent a control byte for the run, one for the
// literal and the literal itself. On bench's 1024-entity world the bodies
// are 35% smaller, and the bytes a client grow less with the room (each
// player's press is news to every client).

const (
	probBits   = 11
	probOne    = 1 << probBits
	probInit   = probOne / 2
	rangeShift = 3 // adaptation: an eighth of the way each bit
	rangeTop   = 1 << 24
	rawSlack   = 8  // the most a coding by the model may pass its Data by
	maxExpo    = 24 // the unary exponent's probabilities; a gap is below 2^24
)

type prob = uint16

// deltaModel is the adaptive model of one body's Data.
type deltaModel struct {
	more [2]prob // by "right after a nonzero byte"
	expo [maxExpo]prob
	mant [maxExpo]prob
	tree [2][8]prob // by "right after a nonzero byte"
}

func (m *deltaModel) reset() {
	for i := range m.more {
		m.more[i] = probInit
	}
	for i := range m.expo {
		m.expo[i], m.mant[i] = probInit, probInit
	}
	for i := range m.tree {
		for j := range m.tree[i] {
			m.tree[i][j] = probInit
		}
	}
}

// rangeEncoder appends the coded bytes to out.
type rangeEncoder struct {
	low       uint64
	rng       uint32
	cache     byte
	cacheSize int64
	first     bool // the first byte out is always zero, and not sent
	out       []byte
}

func (e *rangeEncoder) init(b []byte) {
	*e = rangeEncoder{rng: 0xFFFFFFFF, cacheSize: 1, first: true, out: b}
}

func (e *rangeEncoder) shiftLow() {
	if uint32(e.low) < 0xFF000000 || e.low>>32 != 0 {
		carry := byte(e.low >> 32)
		temp := e.cache
		for {
			if e.first {
				e.first = false
			} else {
				e.out = append(e.out, temp+carry)
			}
			temp = 0xFF
			e.cacheSize--
			if e.cacheSize == 0 {
				break
			}
		}
		e.cache = byte(e.low >> 24)
	}
	e.cacheSize++
	e.low = (e.low & 0x00FFFFFF) << 8
}

func (e *rangeEncoder) bit(p *prob, b uint32) {
	bound := (e.rng >> probBits) * uint32(*p)
	if b == 0 {
		e.rng = bound
		*p += (probOne - *p) >> rangeShift
	} else {
		e.low += uint64(bound)
		e.rng -= bound
		*p -= *p >> rangeShift
	}
	for e.rng < rangeTop {
		e.rng <<= 8
		e.shiftLow()
	}
}

// fixed codes the mode bit, 1 (raw) at odds of 1 in probOne.
func (e *rangeEncoder) fixed(b uint32) {
	bound := (e.rng >> probBits) * (probOne - 1)
	if b == 0 {
		e.rng = bound
	} else {
		e.low += uint64(bound)
		e.rng -= bound
	}
	for e.rng < rangeTop {
		e.rng <<= 8
		e.shiftLow()
	}
}

// direct codes the low n bits of v, high first, at even odds: as many at
// a time as the range holds above rangeTop (up to seven), the range cut
// into 2^k equal parts.
func (e *rangeEncoder) direct(v uint32, n int) {
	for n > 0 {
		k := min(max(bits.Len32(e.rng)-25, 1), n)
		n -= k
		e.rng >>= k
		e.low += uint64(e.rng) * uint64(v>>n&(1<<k-1))
		for e.rng < rangeTop {
			e.rng <<= 8
			e.shiftLow()
		}
	}
}

// finish ends the stream on the value in [low, low+range) with the most
// trailing zero bits, and drops the zero bytes at its end.
func (e *rangeEncoder) finish(start int) []byte {
	hi := e.low + uint64(e.rng) - 1
	for s := 40; s > 0; s-- {
		if v := hi &^ (1<<s - 1); v >= e.low {
			e.low = v
			break
		}
	}
	for range 5 {
		e.shiftLow()
	}
	n := len(e.out)
	for n > start && e.out[n-1] == 0 {
		n--
	}
	return e.out[:n]
}

// appendRange appends the range coding of d (see deltaModel) to b: by
// the model, or raw when that would take more than len(d)+rawSlack bytes.
func appendRange(b, d []byte) []byte {
	var m deltaModel
	m.reset()
	var e rangeEncoder
	start := len(b)
	e.init(b)
	e.fixed(0)
	pos, after := 0, 0
	for {
		if len(e.out)-start > len(d)+rawSlack {
			e.init(b[:start])
			e.fixed(1)
			for _, x := range d {
				e.direct(uint32(x), 8)
			}
			return e.finish(start)
		}
		j := pos + zeroPrefix(d[pos:])
		if j == len(d) {
			e.bit(&m.more[after], 0)
			break
		}
		e.bit(&m.more[after], 1)
		g := j - pos
		if g > 0 {
			after = 0
		}
		m.encodeGap(&e, uint32(g))
		m.encodeByte(&e, after, d[j])
		after, pos = 1, j+1
	}
	return e.finish(start)
}

// zeroPrefix is the count of zero bytes b starts with, read a word at a
// time.
func zeroPrefix(b []byte) int {
	n := 0
	for len(b)-n >= 8 {
		if w := le.Uint64(b[n:]); w != 0 {
			return n + bits.TrailingZeros64(w)/8
		}
		n += 8
	}
	for n < len(b) && b[n] == 0 {
		n++
	}
	return n
}

func (m *deltaModel) encodeGap(e *rangeEncoder, g uint32) {
	v := g + 1
	k := bits.Len32(v) - 1
	for i := range k {
		e.bit(&m.expo[i], 1)
	}
	if k < maxExpo {
		e.bit(&m.expo[k], 0)
	}
	if k > 0 {
		e.bit(&m.mant[k], (v>>(k-1))&1)
		e.direct(v, k-1)
	}
}

func (m *deltaModel) encodeByte(e *rangeEncoder, after int, x byte) {
	l := uint32(bits.Len8(x) - 1)
	t := uint32(1)
	for i := 2; i >= 0; i-- {
		b := (l >> i) & 1
		e.bit(&m.tree[after][t], b)
		t = t<<1 | b
	}
	e.direct(uint32(x), int(l))
}

// rangeDecoder reads a stream from b, zeros past its end.
type rangeDecoder struct {
	code, rng uint32
	win       uint32 // the last four bytes read
	b         []byte
	read      int  // bytes read, past the end too
	bad       bool // the code left the range: no encoder wrote the stream
}

func (d *rangeDecoder) next() uint32 {
	var x byte
	if d.read < len(d.b) {
		x = d.b[d.read]
	}
	d.read++
	d.win = d.win<<8 | uint32(x)
	return uint32(x)
}

func (d *rangeDecoder) init(b []byte) {
	*d = rangeDecoder{rng: 0xFFFFFFFF, b: b}
	for range 4 {
		d.code = d.code<<8 | d.next()
	}
}

// canonical reports whether the stream ended as an encoder ends it: the
// code within the range, on the value with the most trailing zero bits
// (finish).
func (d *rangeDecoder) canonical() bool {
	if d.bad || d.code >= d.rng {
		return false
	}
	low := uint64(d.win - d.code)
	hi := low + uint64(d.rng) - 1
	for s := 40; s > 0; s-- {
		if v := hi &^ (1<<s - 1); v >= low {
			return uint32(v) == d.win
		}
	}
	return d.win == uint32(low)
}

func (d *rangeDecoder) bit(p *prob) uint32 {
	if d.code >= d.rng {
		d.bad = true
	}
	// Without branches (the bits of a dense delta are not predictable):
	// zero is all ones when the code is below the bound.
	v := uint32(*p)
	bound := (d.rng >> probBits) * v
	zero := uint32(int64(uint64(d.code)-uint64(bound)) >> 63)
	d.code -= bound &^ zero
	d.rng = bound&zero | (d.rng-bound)&^zero
	*p = prob((v+(probOne-v)>>rangeShift)&zero | (v-v>>rangeShift)&^zero)
	for d.rng < rangeTop {
		d.rng <<= 8
		d.code = d.code<<8 | d.next()
	}
	return 1 + zero // 0 or 1
}

func (d *rangeDecoder) fixed() uint32 {
	if d.code >= d.rng {
		d.bad = true
	}
	bound := (d.rng >> probBits) * (probOne - 1)
	var b uint32
	if d.code < bound {
		d.rng = bound
	} else {
		d.code -= bound
		d.rng -= bound
		b = 1
	}
	for d.rng < rangeTop {
		d.rng <<= 8
		d.code = d.code<<8 | d.next()
	}
	return b
}

func (d *rangeDecoder) direct(n int) uint32 {
	var v uint32
	for n > 0 {
		if d.code >= d.rng {
			d.bad = true
		}
		k := min(max(bits.Len32(d.rng)-25, 1), n)
		n -= k
		d.rng >>= k
		x := d.code / d.rng
		if x >= 1<<k {
			d.bad, x = true, 1<<k-1 // past the parts: no encoder wrote it
		}
		d.code -= x * d.rng
		v = v<<k | x
		for d.rng < rangeTop {
			d.rng <<= 8
			d.code = d.code<<8 | d.next()
		}
	}
	return v
}

// decodeRange decodes a range-coded stream that runs to the end of b into
// out (all of it: the stream's zeros are written). A stream that is not
// canonical, or that codes past the end of out, is ErrMalformed. It never
// allocates.
func decodeRange(b, out []byte) error {
	if len(b) > 0 && b[len(b)-1] == 0 {
		return ErrMalformed // the zeros at its end are implied
	}
	var m deltaModel
	m.reset()
	var d rangeDecoder
	d.init(b)
	if d.fixed() == 1 {
		for i := range out {
			out[i] = byte(d.direct(8))
		}
		if !d.canonical() || d.read < len(b) {
			return ErrMalformed
		}
		return nil
	}
	pos, after := 0, 0
	for d.bit(&m.more[after]) == 1 {
		g, ok := m.decodeGap(&d)
		if !ok || g >= uint32(len(out)-pos) {
			return ErrMalformed
		}
		if g > 0 {
			after = 0
		}
		clear(out[pos : pos+int(g)])
		pos += int(g)
		out[pos] = m.decodeByte(&d, after)
		after = 1
		pos++
	}
	if !d.canonical() || d.read < len(b) {
		return ErrMalformed // not as an encoder ends a stream, or bytes past it
	}
	clear(out[pos:])
	return nil
}

func (m *deltaModel) decodeGap(d *rangeDecoder) (uint32, bool) {
	k := 0
	for k < maxExpo && d.bit(&m.expo[k]) == 1 {
		k++
	}
	if k >= maxExpo {
		return 0, false
	}
	v := uint32(1)
	if k > 0 {
		v = 2 | d.bit(&m.mant[k])
		v = v<<(k-1) | d.direct(k-1)
	}
	return v - 1, true
}

func (m *deltaModel) decodeByte(d *rangeDecoder, after int) byte {
	t := uint32(1)
	for range 3 {
		t = t<<1 | d.bit(&m.tree[after][t])
	}
	l := int(t - 8)
	return byte(1<<l | d.direct(l))
}
