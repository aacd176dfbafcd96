package session

import "github.com/rollnet/rollnet"

// history holds recent inputs as bytes, per frame and player: local ones to
// resend until acknowledged, remote ones heard but not yet given to the core
// session, confirmed ones for spectators. A slot is valid only while its tag
// names the frame asked for.
type history struct {
	mask    int
	players int
	size    int
	tags    []rollnet.Frame // [slot*players + player]
	data    []byte          // [(slot*players + player) * size ...]
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
	i := (int(f)&h.mask)*h.players + player
	h.tags[i] = f
	copy(h.data[i*h.size:(i+1)*h.size], b)
}

func (h *history) get(f rollnet.Frame, player int) ([]byte, bool) {
	if f < 0 {
		return nil, false
	}
	i := (int(f)&h.mask)*h.players + player
	if h.tags[i] != f {
		return nil, false
	}
	return h.data[i*h.size : (i+1)*h.size], true
}
