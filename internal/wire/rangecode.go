package wire

import "math/bits"

// The coding of a state body's Data (body version 5, authority protocol
// 7): an adaptive binary range coder (the LZMA coder's arithmetic: 11-bit
// probabilities, 32-bit range, carry through a cached byte) over a model
// of a sparse XOR delta, reset for every body, so a body decodes alone.
//
// A stream whose first byte is 0xff is raw: Data's bytes follow as they
// are, without its trailing zeros. An encoder sends raw what the model
// would code in more than len(Data)+rawSlack bytes, which bounds a body.
// Any other stream is coded by the model: the coder starts on the range
// [0, 0xff000000) (so its first byte is never 0xff) and walks the nonzero
// bytes of Data in order. Before each it codes a bit "more" (1: a nonzero
// byte follows; 0: the rest is zeros; one probability for the first, one
// for the others), then its position j, from pos (the index after the
// previous nonzero byte, or 0) in two parts: the count of 4-byte words
// u = j/4 - pos/4, Elias-gamma like (k = the bit length of u in unary, a
// probability per bit; when k >= 2, the bit below the leading one with a
// probability per k and the other k-2 bits at even odds), then the byte
// in its word r = j%4 as a two-bit tree (its probabilities kept apart for
// u = 0). Then the byte x: its bit length less one (0..7) as a three-bit
// tree, kept apart for a byte right after a nonzero byte (the rest of a
// changed word) and one after a gap, then the bits below its leading one
// at even odds. Every probability starts at one half but the priors of
// the end ("more": 600 in 2048), of the first four k (expoInit) and of a
// small byte (treeInit2), and moves an eighth of the way to each bit it
// codes (rangeShift); bits at even odds halve the range one at a time.
// The priors were chosen on bench's worlds (sparse and dense) and pong.
//
// The stream is what the coder emits, its first byte (always zero) left
// out and its end chosen to leave as many zero bytes as it can, which are
// not sent: a decoder reads zeros past the end. A stream coded by the
// model is canonical (one stream for one Data): its last byte is not
// zero, the decoder reads every byte of it, the code never leaves the
// range, and it ends on the value of the final range with the most
// trailing zero bits. A raw stream is canonical too: the decoder codes
// its Data again by the model (counting, not writing) and refuses it
// unless the encoder would have given up on the model.
//
// Why: a state coded against the previous one sent carries a few changed
// bytes spread over the state, and each costs the position's information
// (about the logarithm of the gap, in bits) and a few bits of value.
// Positions in words, with the byte in the word apart, cost fewer bits
// where a game's state is words whose low bytes change (a struct of
// int32s and float32s); the bits at even odds are decoded by a halving and
// a compare, not a division.

const (
	probBits   = 11
	probOne    = 1 << probBits
	probInit   = probOne / 2
	moreInit   = 600  // "more": a zero (the end) at 600 in 2048
	treeInit2  = 1400 // a byte's bit length below 4: below 2 at 1400 in 2048
	rangeShift = 3    // adaptation: an eighth of the way each bit
	rangeTop   = 1 << 24
	rangeStart = 0xFF000000 // the model's first range: its first byte is below rawMark
	rawMark    = 0xFF       // a raw stream's first byte
	rawSlack   = 8          // the most a coding by the model may pass its Data by
	maxExpo    = 24         // the unary exponent's probabilities; a word count is below 2^23
)

type prob = uint16

// expoInit is where the unary word count's first probabilities start (of
// a zero, that is of k being that one): a count of 1 less likely than 0,
// 2 or 3 as likely as 1, and so on, where a half would say each k is half
// as likely as the one before.
var expoInit = [...]prob{1024, 700, 800, 900}

// deltaModel is the adaptive model of one body's Data.
type deltaModel struct {
	more [2]prob // the first, the others
	expo [maxExpo]prob
	mant [maxExpo]prob
	res  [2][4]prob // by "in the previous nonzero byte's word"
	tree [2][8]prob // by "right after a nonzero byte"
}

func (m *deltaModel) reset() {
	m.more = [2]prob{moreInit, moreInit}
	for i := range m.expo {
		m.expo[i], m.mant[i] = probInit, probInit
	}
	for i := range m.res {
		for j := range m.res[i] {
			m.res[i][j] = probInit
		}
	}
	for i := range m.tree {
		for j := range m.tree[i] {
			m.tree[i][j] = probInit
		}
		m.tree[i][2] = treeInit2
	}
	copy(m.expo[:], expoInit[:])
}

// rangeEncoder appends the coded bytes to out.
type rangeEncoder struct {
	low       uint64
	rng       uint32
	cache     byte
	cacheSize int64
	first     bool // the first byte out is always zero, and not sent
	count     bool // count the bytes out (n) without writing them
	n         int  // bytes out
	out       []byte
}

func (e *rangeEncoder) init(b []byte) {
	*e = rangeEncoder{rng: rangeStart, cacheSize: 1, first: true, out: b}
}

func (e *rangeEncoder) shiftLow() {
	if uint32(e.low) < 0xFF000000 || e.low>>32 != 0 {
		carry := byte(e.low >> 32)
		temp := e.cache
		for {
			switch {
			case e.first:
				e.first = false
			case e.count:
				e.n++
			default:
				e.n++
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

// ebit codes bit b (0 or 1) at probability p of a zero, without branches
// (the bits of a dense delta are not predictable), and moves p. The
// caller shifts bytes out (shift) when the range falls below rangeTop.
func ebit(low uint64, rng uint32, p *prob, b uint32) (uint64, uint32) {
	v := uint32(*p)
	bound := (rng >> probBits) * v
	one := -b // all ones for a one
	*p = prob((v+(probOne-v)>>rangeShift)&^one | (v-v>>rangeShift)&one)
	return low + uint64(bound&one), bound&^one | (rng-bound)&one
}

// shift shifts bytes out until the range is at least rangeTop again.
func (e *rangeEncoder) shift(low uint64, rng uint32) (uint64, uint32) {
	e.low = low
	for rng < rangeTop {
		rng <<= 8
		e.shiftLow()
	}
	return e.low, rng
}

// direct codes the low n bits of v, high first, at even odds.
func (e *rangeEncoder) direct(low uint64, rng uint32, v uint32, n int) (uint64, uint32) {
	for n > 0 {
		n--
		rng >>= 1
		low += uint64(rng & -(v >> n & 1))
		if rng < rangeTop {
			low, rng = e.shift(low, rng)
		}
	}
	return low, rng
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
	var e rangeEncoder
	start := len(b)
	e.init(b)
	if !e.model(d) {
		n := len(d)
		for n > 0 && d[n-1] == 0 {
			n--
		}
		return append(append(b[:start], rawMark), d[:n]...)
	}
	return e.finish(start)
}

// model codes d by the model, up to finish; it gives up (false) when that
// passes len(d)+rawSlack bytes, which appendRange then sends raw.
func (e *rangeEncoder) model(d []byte) bool {
	var m deltaModel
	m.reset()
	low, rng := e.low, e.rng
	pos, started := 0, 0
	for {
		if e.n > len(d)+rawSlack {
			return false
		}
		j := pos + zeroPrefix(d[pos:])
		if j == len(d) {
			if low, rng = ebit(low, rng, &m.more[started], 0); rng < rangeTop {
				low, rng = e.shift(low, rng)
			}
			break
		}
		if low, rng = ebit(low, rng, &m.more[started], 1); rng < rangeTop {
			low, rng = e.shift(low, rng)
		}
		started = 1
		u := uint32(j>>2 - pos>>2)
		k := bits.Len32(u)
		for i := range k {
			if low, rng = ebit(low, rng, &m.expo[i], 1); rng < rangeTop {
				low, rng = e.shift(low, rng)
			}
		}
		if low, rng = ebit(low, rng, &m.expo[k], 0); rng < rangeTop {
			low, rng = e.shift(low, rng)
		}
		if k >= 2 {
			if low, rng = ebit(low, rng, &m.mant[k], u>>(k-2)&1); rng < rangeTop {
				low, rng = e.shift(low, rng)
			}
			low, rng = e.direct(low, rng, u, k-2)
		}
		z := 0
		if u == 0 {
			z = 1
		}
		r := uint32(j & 3)
		if low, rng = ebit(low, rng, &m.res[z][1], r>>1); rng < rangeTop {
			low, rng = e.shift(low, rng)
		}
		if low, rng = ebit(low, rng, &m.res[z][2+r>>1], r&1); rng < rangeTop {
			low, rng = e.shift(low, rng)
		}
		adj := 0
		if j == pos {
			adj = 1
		}
		t := &m.tree[adj]
		x := d[j]
		l := uint32(bits.Len8(x) - 1)
		if low, rng = ebit(low, rng, &t[1], l>>2); rng < rangeTop {
			low, rng = e.shift(low, rng)
		}
		if low, rng = ebit(low, rng, &t[2+l>>2], l>>1&1); rng < rangeTop {
			low, rng = e.shift(low, rng)
		}
		if low, rng = ebit(low, rng, &t[4+l>>1], l&1); rng < rangeTop {
			low, rng = e.shift(low, rng)
		}
		low, rng = e.direct(low, rng, uint32(x), int(l))
		pos = j + 1
	}
	e.low, e.rng = low, rng
	return true
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

// rangeDecoder reads a stream from b, zeros past its end. decodeRange
// keeps its code and range in locals (dbit, dfill, ddirect) and stores
// them back for canonical.
type rangeDecoder struct {
	code, rng uint32
	b         []byte
	read      int // bytes read, past the end too
}

// dbit decodes a bit at probability p of a zero, without branches (the
// bits of a dense delta are not predictable), and moves p. The caller
// refills the range (dfill) when it falls below rangeTop.
func dbit(code, rng uint32, p *prob) (uint32, uint32, uint32) {
	v := uint32(*p)
	bound := (rng >> probBits) * v
	zero := uint32(int64(uint64(code)-uint64(bound)) >> 63) // all ones when code < bound
	*p = prob((v+(probOne-v)>>rangeShift)&zero | (v-v>>rangeShift)&^zero)
	return code - bound&^zero, bound&zero | (rng-bound)&^zero, 1 + zero
}

// dfill reads bytes of b from rd into the code until the range is at
// least rangeTop.
func dfill(code, rng uint32, b []byte, rd int) (uint32, uint32, int) {
	for rng < rangeTop {
		var x byte
		if rd < len(b) {
			x = b[rd]
		}
		rd++
		rng <<= 8
		code = code<<8 | uint32(x)
	}
	return code, rng, rd
}

// ddirect decodes n bits at even odds, high first.
func ddirect(code, rng uint32, n int, b []byte, rd int) (uint32, uint32, uint32, int) {
	var v uint32
	for range n {
		rng >>= 1
		one := uint32(int64(uint64(rng)-uint64(code)-1) >> 63) // all ones when code >= rng
		code -= rng & one
		v = v<<1 | one&1
		if rng < rangeTop {
			code, rng, rd = dfill(code, rng, b, rd)
		}
	}
	return code, rng, v, rd
}

// canonical reports whether the stream ended as an encoder ends it: the
// code within the range, on the value with the most trailing zero bits
// (finish).
func (d *rangeDecoder) canonical() bool {
	if d.code >= d.rng {
		return false
	}
	var win uint32 // the last four bytes read
	for i := d.read - 4; i < d.read; i++ {
		var x byte
		if i >= 0 && i < len(d.b) {
			x = d.b[i]
		}
		win = win<<8 | uint32(x)
	}
	low := uint64(win - d.code)
	hi := low + uint64(d.rng) - 1
	for s := 40; s > 0; s-- {
		if v := hi &^ (1<<s - 1); v >= low {
			return uint32(v) == win
		}
	}
	return win == uint32(low)
}

// decodeRange decodes a range-coded stream that runs to the end of b into
// out (all of it: the stream's zeros are written). A stream that is not
// canonical, or that codes past the end of out, is ErrMalformed. It never
// allocates.
func decodeRange(b, out []byte) error {
	if len(b) > 0 && b[len(b)-1] == 0 {
		return ErrMalformed // the zeros at its end are implied
	}
	if len(b) > 0 && b[0] == rawMark {
		if len(b)-1 > len(out) {
			return ErrMalformed
		}
		clear(out[copy(out, b[1:]):])
		// Canonical only if the encoder gives up on the model for it:
		// code it again, counting bytes (a raw stream costs its decoder
		// an encoding, bounded by its size).
		e := rangeEncoder{rng: rangeStart, cacheSize: 1, first: true, count: true}
		if e.model(out) {
			return ErrMalformed
		}
		return nil
	}
	var m deltaModel
	m.reset()
	var code, bt uint32
	rng, rd := uint32(rangeStart), 0
	for range 4 { // the range starts full: the first four bytes, no shift
		var x byte
		if rd < len(b) {
			x = b[rd]
		}
		rd++
		code = code<<8 | uint32(x)
	}
	clear(out) // once: a clear a gap costs a call a changed byte
	pos, started, bad := 0, 0, false
	for {
		if code >= rng {
			bad = true // no encoder wrote it; bounded all the same
		}
		if code, rng, bt = dbit(code, rng, &m.more[started]); rng < rangeTop {
			code, rng, rd = dfill(code, rng, b, rd)
		}
		if bt == 0 {
			break
		}
		started = 1
		k := 0
		for ; k < maxExpo; k++ {
			if code, rng, bt = dbit(code, rng, &m.expo[k]); rng < rangeTop {
				code, rng, rd = dfill(code, rng, b, rd)
			}
			if bt == 0 {
				break
			}
		}
		if k >= maxExpo-1 {
			return ErrMalformed // a count past any Data
		}
		u := uint32(k)
		if k >= 2 {
			if code, rng, bt = dbit(code, rng, &m.mant[k]); rng < rangeTop {
				code, rng, rd = dfill(code, rng, b, rd)
			}
			var v uint32
			code, rng, v, rd = ddirect(code, rng, k-2, b, rd)
			u = (2|bt)<<(k-2) | v
		}
		z := 0
		if u == 0 {
			z = 1
		}
		res := &m.res[z]
		if code, rng, bt = dbit(code, rng, &res[1]); rng < rangeTop {
			code, rng, rd = dfill(code, rng, b, rd)
		}
		r := bt
		if code, rng, bt = dbit(code, rng, &res[2+r]); rng < rangeTop {
			code, rng, rd = dfill(code, rng, b, rd)
		}
		j := (pos>>2+int(u))<<2 | int(r<<1|bt)
		if j < pos || j >= len(out) {
			return ErrMalformed
		}
		adj := 0
		if j == pos {
			adj = 1
		}
		t := &m.tree[adj]
		if code, rng, bt = dbit(code, rng, &t[1]); rng < rangeTop {
			code, rng, rd = dfill(code, rng, b, rd)
		}
		l := bt
		if code, rng, bt = dbit(code, rng, &t[2+l]); rng < rangeTop {
			code, rng, rd = dfill(code, rng, b, rd)
		}
		l = l<<1 | bt
		if code, rng, bt = dbit(code, rng, &t[4+l]); rng < rangeTop {
			code, rng, rd = dfill(code, rng, b, rd)
		}
		l = l<<1 | bt
		var v uint32
		code, rng, v, rd = ddirect(code, rng, int(l), b, rd)
		out[j] = byte(1<<l | v)
		pos = j + 1
	}
	d := rangeDecoder{code: code, rng: rng, b: b, read: rd}
	if bad || !d.canonical() || rd < len(b) {
		return ErrMalformed // not as an encoder ends a stream, or bytes past it
	}
	return nil
}
