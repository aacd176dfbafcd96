package authority

import (
	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
)

// jumpLimit is how far, in 256ths of a frame, a client's render time may
// move off the frames between two of its inputs before the sight counts
// as a jump: a render clock steered by rate (at most 10%) moves about a
// frame a frame, and stamps taken at drawn frames between steps wobble by
// under one.
const jumpLimit = 2 * 256

// heardSight reads the sight a client sent with its input for frame g:
// one naming a state never sent to it, or not before g, is moved down to
// the newest it may have drawn (SightsTooNew), and one whose render time jumped against the previous
// one's is counted (SightJumps).
func (h *Host[S, I]) heardSight(c *hostClient[I], s wire.Sight, g rollnet.Frame) claim {
	cl := claimOf(s, g)
	if cl.from == rollnet.NoFrame {
		return cl
	}
	// The newest state the client may have drawn: one sent it, before
	// the frame it acts at.
	if newest := min(c.sentUpTo, g-1); cl.to > newest || cl.t > int64(newest)*256 {
		c.stats.SightsTooNew++
		if newest < 0 {
			return noClaim
		}
		cl = claim{t: int64(newest) * 256, from: newest, to: newest, at: g}
	}
	if last := c.sightLast; last.from != rollnet.NoFrame && g > last.at {
		moved := cl.t - last.t - int64(g-last.at)*256
		if moved > jumpLimit || moved < -jumpLimit {
			c.stats.SightJumps++
		}
	}
	c.sightLast = cl
	return cl
}

// inEffect records cl as client c's sight at frame f, the frame its input
// is applied at: one older than MaxRewind behind f is moved up to it
// (SightsTooOld).
func (h *Host[S, I]) inEffect(c *hostClient[I], cl claim, f rollnet.Frame) {
	if cl.from != rollnet.NoFrame && int64(f)*256-cl.t > h.rewind {
		c.stats.SightsTooOld++
		g := f - rollnet.Frame(h.rewind/256)
		cl = claim{t: int64(g) * 256, from: g, to: g}
	}
	cl.at = f
	i := (c.first - h.s.locals) / h.s.perClient
	h.seen[int(f)%sentLen*len(h.clients)+i] = cl
}

// sightOf is Sights.Of on the host: the sight in effect for player at
// frame f, resolved against the states as sent.
func (h *Host[S, I]) sightOf(player int, f rollnet.Frame) (Sight[S], bool) {
	if player < h.s.locals || player >= h.s.players || f < 0 {
		return Sight[S]{}, false
	}
	i := (player - h.s.locals) / h.s.perClient
	if i >= len(h.clients) {
		return Sight[S]{}, false
	}
	cl := h.seen[int(f)%sentLen*len(h.clients)+i]
	if cl.at != f || cl.from == rollnet.NoFrame || cl.to >= f {
		return Sight[S]{}, false
	}
	a, b := int(cl.from)%sentLen, int(cl.to)%sentLen
	if h.sentTags[a] != cl.from || h.sentTags[b] != cl.to {
		return Sight[S]{}, false
	}
	h.stats.Rewinds++
	return newSight(&h.sent[a], &h.sent[b], cl), true
}
