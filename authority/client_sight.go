package authority

import (
	"math"

	"github.com/rollnet/rollnet"
)

// DrawnAt says the client drew the entities it does not control at render
// time t (in host frames, as RenderTime): the inputs of the steps that
// follow carry it, the host states around t (as PlayoutAt picks them)
// and t to 1/256 of a frame, until the next call. Update calls it at its
// end with RenderTime (the time the game is about to draw at); a game
// with its own loop calls it after drawing. A client not made with
// NewClientLagComp ignores it.
func (c *Client[S, I]) DrawnAt(t float64) {
	if !c.lagcomp {
		return
	}
	c.stamp = noClaim
	newest := c.newestHost
	if newest == rollnet.NoFrame || !(t >= 0) || t > float64(math.MaxInt32) {
		return
	}
	t256 := int64(math.Floor(t * 256))
	fa := rollnet.NoFrame
	for g := min(rollnet.Frame(t256>>8), newest); g > newest-baselineWindow && g >= 0; g-- {
		if c.baseTags[int(g)%baselineWindow] == g {
			fa = g
			break
		}
	}
	if fa == rollnet.NoFrame {
		return
	}
	fb := fa
	for g := fa + 1; g <= newest; g++ {
		if c.baseTags[int(g)%baselineWindow] == g {
			fb = g
			break
		}
	}
	if fb > fa {
		t256 = min(t256, int64(fb)*256-1)
	} else {
		t256 = int64(fa) * 256 // past the newest: it alone is drawn
	}
	c.stamp = claim{t: t256, from: fa, to: fb}
}

// Sight is what the client stamps its next inputs with (the last DrawnAt):
// the host states and the render time, exactly as the host will see them.
// A game that draws others from it (Sight.Lerp) draws what its shots are
// judged against, to the bit; PlayoutAt at RenderTime is within 1/256 of
// a frame of it. ok is false before a sight, or once its states are gone.
func (c *Client[S, I]) Sight() (Sight[S], bool) {
	return c.resolve(c.stampFor(c.frame))
}

// stampFor is the stamp as input frame g carries it: what the wire can
// say of it, and nothing more, so the client predicts from what the host
// reads.
func (c *Client[S, I]) stampFor(g rollnet.Frame) claim {
	cl := claimOf(sightOfClaim(c.stamp, g), g)
	cl.at = g
	return cl
}

// sightOf is Sights.Of on the client: its own players' sight at frame f,
// as it stamped the input; the others' are unknown.
func (c *Client[S, I]) sightOf(player int, f rollnet.Frame) (Sight[S], bool) {
	if player < c.first || player >= c.first+c.slots || f < 0 {
		return Sight[S]{}, false
	}
	cl := c.ownSight[int(f)%c.capacity]
	if cl.at != f {
		return Sight[S]{}, false
	}
	return c.resolve(cl)
}

// resolve finds a sight's states among the host states held.
func (c *Client[S, I]) resolve(cl claim) (Sight[S], bool) {
	if cl.from == rollnet.NoFrame {
		return Sight[S]{}, false
	}
	a, b := int(cl.from)%baselineWindow, int(cl.to)%baselineWindow
	if c.baseTags[a] != cl.from || c.baseTags[b] != cl.to {
		return Sight[S]{}, false
	}
	return newSight(&c.base[a], &c.base[b], cl), true
}
