//go:build !js

package main

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/transportfigures"
)

// TestTransportFigures runs every transport figure short, the first host
// state with package authority, and checks that each is sane: a
// datagram costs more than its payload on the wire and less than a full
// packet, connections complete, the host spends CPU. With
// ROLLNET_FIGURES=1 it runs the full configuration and prints the table.
func TestTransportFigures(t *testing.T) {
	cfg := transportfigures.Config{Datagrams: 30, Connects: 1, Clients: 2, Ticks: 30, Limit: 30 * time.Second, Authority: authorityFigures{}}
	if os.Getenv("ROLLNET_FIGURES") != "" {
		cfg = transportfigures.Config{Authority: authorityFigures{}}
	}
	f, err := transportfigures.Measure(cfg)
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
