package netplay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport/local"
)

// TestEntityChangedFeed: a host given EntityConfig.Changed encodes what
// the game names. Naming every entity plays as TestEntityMatch does (the
// clients' wanderers follow the host's); naming only the avatars leaves
// the wanderers a client holds where the host first sent them, which
// shows the host took the game's word (and that the driver passed it on).
func TestEntityChangedFeed(t *testing.T) {
	for _, tc := range []struct {
		name string
		all  bool
	}{{"every entity named", true}, {"only the avatars named", false}} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			l := newCrowdLANWith(t, local.Link{Latency: 30 * time.Millisecond, Loss: 0.02}, 2, func(ec *netplay.EntityConfig[Crowd, Buttons]) {
				ec.Changed = func(c *Crowd, dst []int32) []int32 {
					calls++
					n := int32(3) // the avatars: slots 0 and 1 (and the host's unused 2)
					if tc.all {
						n = crowdCap
					}
					for i := range n {
						dst = append(dst, i)
					}
					return dst
				}
			})
			l.press[1], l.press[2] = 1, -1
			l.run(400)
			require.Greater(t, calls, 300, "the host asked the game what changed")
			host := l.ms[0].State()
			for i := 1; i < len(l.ms); i++ {
				m := l.ms[i]
				c, slot := m.State(), m.Seat()
				held, behind := 0, 0
				for j := range c.Slots {
					if !c.Slots[j].Live || j < 3 {
						continue
					}
					held++
					dx, dy := c.Mobs[j].X-host.Mobs[j].X, c.Mobs[j].Y-host.Mobs[j].Y
					if dx*dx+dy*dy > 100*100 {
						behind++
					}
				}
				s := m.Stats()
				t.Logf("client %d: %d wanderers held, %d over 100 units from the host's, %d of %d predictions agreed", i, held, behind, s.Agreed, s.Compared)
				require.Greater(t, held, 5)
				require.GreaterOrEqual(t, s.Agreed, s.Compared*9/10, "client %d's avatar (slot %d) is named either way", i, slot)
				if tc.all {
					require.Zero(t, behind, "client %d: wanderers named each frame follow the host's", i)
				} else {
					require.Greater(t, behind, held/2, "client %d: wanderers never named stay where they were first sent", i)
				}
			}
		})
	}
}
