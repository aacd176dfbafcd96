package authority

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport/local"
)

func mash(seed uint16, every Frame) func(Frame) uint16 {
	return func(f Frame) uint16 { return uint16(uint32(f/every)*2654435761>>13) ^ seed }
}

func TestHostClientQuiet(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 1, players: 2, link: local.Link{Latency: 20 * time.Millisecond}})
	a := c.add("a", ClientConfig{}, mash(1, 7))
	b := c.add("b", ClientConfig{}, mash(2, 5))
	c.run(10 * time.Second)
	for _, nd := range []*node{a, b} {
		st := nd.c.Stats()
		t.Logf("%s: %+v", nd.name, st)
		require.True(t, st.Synchronized)
	}
	for _, s := range c.h.Clients(nil) {
		t.Logf("host view: %+v", s)
	}
	t.Logf("host: %+v checked %d", c.h.Stats(), c.checked)
	require.Greater(t, c.checked, 500)
}
