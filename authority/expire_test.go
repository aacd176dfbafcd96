package authority

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport/local"
)

// A client that goes (cut off past its grace window, closed cleanly, or a
// bare Hello that never played) leaves no frame of its slots unconfirmed: with LateRollback the frames
// the host predicted for it in the rollback window are settled when its
// record is freed, so the host's core session confirms on and the host
// keeps advancing for thousands of frames (a slot left predicted hits the
// core's prediction limit about 64 frames later). A client that joins the
// freed slot afterwards plays on it.
func TestClientGoneKeepsHostConfirming(t *testing.T) {
	for _, late := range []LateInput{LateApply, LateRollback} {
		for _, leave := range []string{"Cut", "Close", "Hello"} {
			t.Run([]string{"Apply", "Rollback"}[late]+leave, func(t *testing.T) {
				link := local.Link{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond}
				net := rollnet.NetConfig{DisconnectTimeout: time.Second, DisconnectNotify: 500 * time.Millisecond}
				c := newCluster(t, clusterOpts{seed: 41, players: 2, link: link,
					host: HostConfig[uint16]{LateInput: late, Grace: time.Second, Net: net}})
				c.noCheck = late == LateRollback // a host that rolls back changes frames it already sent
				b := c.add("b", ClientConfig{Net: net}, mash(2, 4))
				var a *node
				if leave != "Hello" {
					a = c.add("a", ClientConfig{Net: net}, mash(1, 3))
				}
				c.run(3 * time.Second)
				switch leave {
				case "Cut":
					c.net.Partition("a", "host")
				case "Close":
					require.NoError(t, a.c.Close())
				case "Hello": // a record with its slot predicted, freed once its link times out
					ep, err := c.net.Endpoint("a")
					require.NoError(t, err)
					require.NoError(t, ep.Send("host", wire.Hello{Protocol: protocol, Settings: c.h.Settings(), Nonce: 7}.Append(nil)))
					c.run(100 * time.Millisecond)
					require.Equal(t, 2, c.h.Stats().Clients)
				}
				if a != nil {
					require.True(t, a.c.Synchronized())
					a.cut = true
				}
				c.run(60 * time.Second) // 3600 frames, nearly all after a's grace ran out
				hs := c.h.Stats()
				require.Equal(t, uint64(1), hs.Expired, "a's record was freed")
				require.Equal(t, 1, hs.Clients)
				require.GreaterOrEqual(t, c.h.session.ConfirmedFrame(), c.h.Frame()-rollnet.Frame(c.h.s.window)-1,
					"every frame older than the rollback window is confirmed")
				t.Logf("frame %d, confirmed %d, host %+v", c.h.Frame(), c.h.session.ConfirmedFrame(), hs)
				require.True(t, b.c.Synchronized(), "the other client played on")

				// A newcomer takes the freed slot and the host goes on.
				d := c.add("d", ClientConfig{Net: net}, mash(3, 5))
				c.run(10 * time.Second)
				require.True(t, d.c.Synchronized())
				require.Equal(t, 2, c.h.Stats().Clients)
				require.GreaterOrEqual(t, c.h.session.ConfirmedFrame(), c.h.Frame()-rollnet.Frame(c.h.s.window)-1)
			})
		}
	}
}
