package p2p

import "github.com/rollnet/rollnet"

// archive is the spectator archive (Config.SpectatorArchive): every
// player's confirmed inputs of the frames from the first, one row of
// players × input size bytes a frame, kept for a peer that replays the
// match from its start (a spectator added late, a player coming back). Its
// rows are laid out as the bulk feed's datagrams carry them. The zero
// value holds nothing.
type archive struct {
	rows   []byte
	newest rollnet.Frame // frames up to newest are all held
	stride int           // bytes a row: players × size
	size   int           // bytes an input
}

// newArchive returns an archive of frames rows of players inputs of size
// bytes, holding every frame up to newest (the first frames, whose inputs
// are zero) from the start. It allocates.
func newArchive(frames, players, size int, newest rollnet.Frame) archive {
	return archive{rows: make([]byte, frames*players*size), newest: newest, stride: players * size, size: size}
}

// frames is how many frames it can hold.
func (a *archive) frames() int { return len(a.rows) / max(1, a.stride) }

// holds reports whether it holds the n frames from start.
func (a *archive) holds(start rollnet.Frame, n int) bool {
	return len(a.rows) > 0 && start >= 0 && start+rollnet.Frame(n)-1 <= a.newest
}

// span returns the rows of the n frames from start, which it holds.
func (a *archive) span(start rollnet.Frame, n int) []byte {
	return a.rows[int(start)*a.stride : (int(start)+n)*a.stride]
}

// input returns player's input of frame f, if held.
func (a *archive) input(f rollnet.Frame, player int) ([]byte, bool) {
	if !a.holds(f, 1) {
		return nil, false
	}
	i := int(f)*a.stride + player*a.size
	return a.rows[i : i+a.size], true
}

// fill appends the frames after newest up to c, while it has room and get
// has every player's input of the frame.
func (a *archive) fill(c rollnet.Frame, players int, get func(f rollnet.Frame, player int) ([]byte, bool)) {
	for f := a.newest + 1; f <= c && int(f+1)*a.stride <= len(a.rows); f++ {
		row := a.rows[int(f)*a.stride : int(f+1)*a.stride]
		for pl := range players {
			b, ok := get(f, pl)
			if !ok {
				return
			}
			copy(row[pl*a.size:], b)
		}
		a.newest = f
	}
}
