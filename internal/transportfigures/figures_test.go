//go:build !js

package transportfigures

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	ClientsMain()
	goleak.VerifyTestMain(m)
}

// TestFigures runs every figure short and checks that each is sane: a
// datagram costs more than its payload on the wire and less than a full
// packet, connections complete, the host spends CPU. With
// ROLLNET_FIGURES=1 it runs the full configuration and prints the table.
func TestFigures(t *testing.T) {
	cfg := Config{Datagrams: 30, Connects: 1, Clients: 2, Ticks: 30, Limit: 30 * time.Second}
	if os.Getenv("ROLLNET_FIGURES") != "" {
		cfg = Config{}
	}
	f, err := Measure(cfg)
	require.NoError(t, err)
	f.Print(t.Output())
	require.Len(t, f.Transports, 2)
	for _, tr := range f.Transports {
		w := tr.Wire
		require.Greater(t, w.UpBytes, float64(f.Config.Payload), "%s: under the payload", tr.Name)
		require.Less(t, w.OnTheWire(), 1500.0, "%s: more than a packet per input", tr.Name)
		require.GreaterOrEqual(t, w.UpPackets, 0.9, "%s: packets per input", tr.Name)
		require.Positive(t, tr.Connect, tr.Name)
		require.Greater(t, tr.FirstState, tr.Connect/2, "%s: a first state before half a first datagram's time", tr.Name)
		require.Positive(t, tr.HostCPU, tr.Name)
	}
}
