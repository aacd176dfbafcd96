package main

import (
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/impair"
	"github.com/rollnet/rollnet/transport/local"
)

// TestMostImpairedStillPlays: two sides, each impaired as much as -impair
// allows (transport/impair, the wrapper -impair puts around WebRTC), get
// through the handshake and play (on synctest's fake clock).
func TestMostImpairedStillPlays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		nw, err := local.NewNetwork(local.Config{Seed: 2, Now: time.Now})
		require.NoError(t, err)
		most := impairment{Latency: maxImpair - 100*time.Millisecond, Jitter: 100 * time.Millisecond, Loss: 0.05}
		var sides [2]*netMatch
		for i, name := range []transport.Peer{"left", "right"} {
			e, err := nw.Endpoint(string(name))
			require.NoError(t, err)
			im, err := impair.New(e, most.config(uint32(i)))
			require.NoError(t, err)
			defer im.Close()
			o := options{delay: 2, fps: 60, seed: 5}
			r := rand.New(rand.NewPCG(5, uint64(i)))
			sides[i], err = newP2PMatch(im, []transport.Peer{"right", "left"}[i], o, time.Now, r.Uint64)
			require.NoError(t, err)
			defer sides[i].Close()
		}
		seat(t, nil, sides[0], sides[1])
		start := time.Now()
		for sides[0].p2p().Frame() < 60 || sides[1].p2p().Frame() < 60 {
			require.Less(t, time.Since(start), time.Minute, "frames %d, %d", sides[0].p2p().Frame(), sides[1].p2p().Frame())
			time.Sleep(time.Second / 60)
			for i, m := range sides {
				require.NoError(t, m.Tick(Bot(m.State(), i)))
			}
		}
		t.Logf("60 frames after %v at %v each way on both sides", time.Since(start), most)
	})
}
