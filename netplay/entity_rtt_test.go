package netplay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport/local"
)

// TestEntityClientRTT: an entity client times its own round trip, from
// its input messages to the states that echo them, less what the host
// held them: over a link of a known latency on a fake clock it reads
// twice the latency, rounded up to the ticks both game loops read their
// datagrams at (the definition of Stats.RTT: through both game loops),
// in its Stats and its Status. Over a lossy link too: a state lost, the
// next one echoes the same input, held a tick longer, which the host
// says and the client takes off. Before the echo it read 0.
func TestEntityClientRTT(t *testing.T) {
	tick := time.Second / 60
	for _, link := range []local.Link{
		{Latency: 20 * time.Millisecond},
		{Latency: 80 * time.Millisecond},
		{Latency: 50 * time.Millisecond, Loss: 0.3},
	} {
		latency := link.Latency
		l := newCrowdLAN(t, link, 1)
		l.press[1] = 1
		l.run(300)
		rtt := l.ms[1].Stats().RTT
		require.GreaterOrEqual(t, rtt, 2*latency, "latency %v", latency)
		require.LessOrEqual(t, rtt, 2*latency+2*tick+time.Millisecond, "latency %v (and a held's tenths of a millisecond)", latency)
		require.Equal(t, rtt, l.sts[1].RTT, "the Status says the same")
		t.Logf("latency %v, loss %v: the client's RTT %v, the host's %v", latency, link.Loss, rtt, l.ms[0].Stats().RTT)
	}
}
