package authority

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/pacing"
)

// A client that talks every frame but sits far behind the host (it
// anchored late) is late, not silent: the advice must tell it to speed
// up. The silence test read the margin, so a client 7 to 22 frames late
// was taken for cut off, never advised, and stayed that late for the
// rest of the match (torture's T10 at 12,000 frames: one client's inputs
// 5,864 times late, 126 waiting in its late queue at the end). A client
// that truly went silent is still not advised from its stale margins.
func TestAdviceReachesAClientFarBehind(t *testing.T) {
	const target, maxRate = 2, 100
	for _, behind := range []rollnet.Frame{3, 10, 22} {
		c := newHostClient[uint16](1, 64)
		c.state = clientConnected
		for f := rollnet.Frame(100); f < 400; f++ {
			c.adv.Heard(int32(f-behind), int32(f)) // a message every frame, behind frames late
			c.advise(f, target, maxRate)
		}
		require.Equal(t, int32(maxRate), c.adv.Rate(), "%d frames late: the advice (thousandths) asks the client to speed up", behind)
	}

	c := newHostClient[uint16](1, 64)
	c.state = clientConnected
	for f := rollnet.Frame(100); f < 200; f++ {
		c.adv.Heard(int32(f+target), int32(f))
		c.advise(f, target, maxRate)
	}
	// Silent from frame 200 on: its margins shrink for as long as the lead
	// and the tail would cover, then the advice stops moving.
	quiet := rollnet.Frame(200 + target + pacing.AdviceMaxTail + 1)
	for f := rollnet.Frame(200); f < quiet; f++ {
		c.advise(f, target, maxRate)
	}
	was := c.adv.Rate()
	for f := quiet; f < 400; f++ {
		c.advise(f, target, maxRate)
	}
	require.Equal(t, was, c.adv.Rate(), "a silent client's advice stays what it was")
	require.Less(t, was, int32(maxRate), "a client silent 8 frames is not yet told to hurry")
}
