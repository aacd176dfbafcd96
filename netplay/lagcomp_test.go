package netplay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// rangeWorld is a target crossing at 4 units a frame and one player's
// shots and hits; a shot is an input naming an X (0: none).
type rangeWorld struct {
	TargetX, Shots, Hits int32
}

// shootAt judges a shot where its player saw the target, at the present
// without a sight.
func shootAt(w *rangeWorld, in []int32, _ rollnet.Frame, seen *authority.Sights[rangeWorld]) {
	if at := in[0]; at != 0 {
		x := w.TargetX
		if sg, ok := seen.Of(0); ok {
			x = sg.Lerp(sg.From.TargetX, sg.To.TargetX)
		}
		w.Shots++
		if at-x >= -2 && at-x <= 2 {
			w.Hits++
		}
	}
	w.TargetX += 4
}

// TestLagCompOption: netplay's LagComp option carries the whole world's
// lag compensation, so a game need not drive authority itself: over
// 100 ± 20 ms round trips and 2% loss a bot aiming where it draws the
// target (AuthClient().Sight()) has its hits confirmed by the host; the
// same match without the option confirms nearly none.
// (Playout is what the client drew: with LagComp, the states and the
// blend its inputs are stamped with.)
func TestLagCompOption(t *testing.T) {
	play := func(lagcomp bool) (fired int32, w rangeWorld, st netplay.Stats) {
		clock := local.NewClock(epoch)
		n, err := local.NewNetwork(local.Config{Seed: 4, Now: clock.Now, Link: local.Link{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}})
		require.NoError(t, err)
		he, err := n.Endpoint("host")
		require.NoError(t, err)
		ce, err := n.Endpoint("shooter")
		require.NoError(t, err)
		var opts []netplay.Option[rangeWorld, int32]
		present := func(w *rangeWorld, in []int32, f rollnet.Frame) { shootAt(w, in, f, &authority.Sights[rangeWorld]{}) }
		simulate := present
		if lagcomp {
			opts, simulate = append(opts, netplay.LagComp(0, shootAt)), nil
		}
		h, err := netplay.Host(netplay.Config{Transport: he, Now: clock.Now, Players: 1}, simulate, opts...)
		require.NoError(t, err)
		defer h.Close()
		h.OnSession(func() error { h.State().TargetX = 1000; return nil })
		c, err := netplay.Connect(netplay.Config{Transport: ce, Now: clock.Now, Players: 1, Peers: []transport.Peer{"host"}}, simulate, opts...)
		require.NoError(t, err)
		defer c.Close()
		var press int32
		for k := range 1200 {
			_, err := h.AdvanceFrame(0)
			require.NoError(t, err)
			st, err := c.AdvanceFrame(press)
			require.NoError(t, err)
			if press != 0 && st.Phase == netplay.Running {
				fired++
			}
			press = 0
			if a, b, alpha, ok := c.Playout(); ok && k%10 == 0 && k < 1140 {
				press = a.TargetX + int32(alpha*float64(b.TargetX-a.TargetX)) // where it draws the target
			}
			clock.Advance(time.Second / 60)
		}
		return fired, *h.State(), h.Stats()
	}
	fired, with, st := play(true)
	_, without, _ := play(false)
	rewinds := st.Rewinds
	t.Logf("LagComp: %d of %d hits seen confirmed (%d judged, %d rewinds); without it %d of %d", with.Hits, fired, with.Shots, rewinds, without.Hits, without.Shots)
	require.Greater(t, fired, int32(80))
	require.GreaterOrEqual(t, float64(with.Hits), 0.95*float64(fired))
	require.Less(t, without.Hits, without.Shots/4)
	require.GreaterOrEqual(t, st.Rewinds, uint64(fired), "the host's Stats count its rewinds")
	require.Zero(t, st.SightJumps+st.SightsTooOld)

	_, err := netplay.Host(netplay.Config{Players: 1}, nil, netplay.LagComp(0, shootAt), netplay.Entities(netplay.EntityConfig[rangeWorld, int32]{}))
	require.ErrorIs(t, err, rollnet.ErrConfig)
}
