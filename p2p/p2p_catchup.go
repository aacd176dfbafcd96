package p2p

import (
	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
)

// catchRing is a rejoining peer's buffer of the catch-up frames its
// sponsor feeds (every player's inputs of the frames before R, see the top
// of p2p_rejoin.go), held until simulated: catchFrames frames, a row of
// players × input size bytes each. The bulk feed's datagrams of one burst
// arrive in any order: every frame of the window is kept, and caught
// advances over those held contiguously. The zero value holds nothing and
// is not used (a session that is not rejoining has none).
type catchRing struct {
	ring   []byte          // catchFrames rows
	tags   []rollnet.Frame // per row: the frame it holds, NoFrame none
	in     []byte          // parse buffer, wire.MaxFrames frames of every player
	stride int             // bytes a row
	caught rollnet.Frame   // newest frame held, contiguously
	ackDue bool            // the sponsor is owed an acknowledgement of caught
}

// newCatchRing returns an empty ring for players inputs of size bytes,
// holding every frame up to caught. It allocates.
func newCatchRing(players, size int, caught rollnet.Frame) catchRing {
	c := catchRing{
		ring:   make([]byte, catchFrames*players*size),
		tags:   make([]rollnet.Frame, catchFrames),
		in:     make([]byte, wire.MaxFrames*players*size),
		stride: players * size,
		caught: caught,
	}
	for k := range c.tags {
		c.tags[k] = rollnet.NoFrame
	}
	return c
}

// hold keeps row, frame f's inputs.
func (c *catchRing) hold(f rollnet.Frame, row []byte) {
	copy(c.ring[(int(f)%catchFrames)*c.stride:], row)
	c.tags[int(f)%catchFrames] = f
}

// extend moves caught over the frames held contiguously after it, below
// r.
func (c *catchRing) extend(r rollnet.Frame) {
	for c.caught+1 < r && c.tags[int(c.caught+1)%catchFrames] == c.caught+1 {
		c.caught++
	}
}

// row returns the inputs of frame f (held: f <= caught, within the ring).
func (c *catchRing) row(f rollnet.Frame) []byte {
	i := (int(f) % catchFrames) * c.stride
	return c.ring[i : i+c.stride]
}
