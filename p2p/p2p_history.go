package p2p

import (
	"encoding/binary"

	"github.com/rollnet/rollnet"
)

// history holds recent inputs as bytes, per player and frame: local ones to
// resend until acknowledged, remote ones heard but not yet given to the core
// session, confirmed ones for spectators. A slot is valid only while its tag
// names the frame asked for. A player's frames lie one after the other (but
// at the ring's end), so a run of them is one slice (run).
type history struct {
	mask    int
	players int
	size    int
	tags    []rollnet.Frame // [player*frames + slot]
	data    []byte          // [(player*frames + slot) * size ...]
}

func newHistory(frames, players, size int) history {
	h := history{mask: frames - 1, players: players, size: size,
		tags: make([]rollnet.Frame, frames*players), data: make([]byte, frames*players*size)}
	for i := range h.tags {
		h.tags[i] = rollnet.NoFrame
	}
	return h
}

func (h *history) put(f rollnet.Frame, player int, b []byte) {
	i := player*(h.mask+1) + int(f)&h.mask
	h.tags[i] = f
	copyInput(h.data[i*h.size:], b) // len(b) is h.size
}

// copyInput copies one input's bytes, src into dst (at least as long):
// the sizes inputs mostly have as one load and store each, without
// memmove's call (several a frame, of two bytes say).
func copyInput(dst, src []byte) {
	le := binary.LittleEndian
	switch len(src) {
	case 1:
		dst[0] = src[0]
	case 2:
		le.PutUint16(dst, le.Uint16(src))
	case 4:
		le.PutUint32(dst, le.Uint32(src))
	case 8:
		le.PutUint64(dst, le.Uint64(src))
	default:
		copy(dst, src)
	}
}

func (h *history) get(f rollnet.Frame, player int) ([]byte, bool) {
	if f < 0 {
		return nil, false
	}
	i := player*(h.mask+1) + int(f)&h.mask
	if h.tags[i] != f {
		return nil, false
	}
	return h.data[i*h.size : (i+1)*h.size], true
}

// run returns player's inputs of frames f to f+n-1 as one slice of the
// history (valid until the next put), when every one is held and they do
// not wrap around the ring's end; false otherwise.
func (h *history) run(f rollnet.Frame, player, n int) ([]byte, bool) {
	s := int(f) & h.mask
	if f < 0 || s+n > h.mask+1 {
		return nil, false
	}
	i := player*(h.mask+1) + s
	for k, t := range h.tags[i : i+n] {
		if t != f+rollnet.Frame(k) {
			return nil, false
		}
	}
	return h.data[i*h.size : (i+n)*h.size], true
}
