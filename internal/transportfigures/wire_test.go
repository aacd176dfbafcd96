package transportfigures_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/transportfigures"
)

// TestWireOut checks the computation by hand: 60 datagrams of 32 B a
// second each way.
func TestWireOut(t *testing.T) {
	// UDP: 28 B of headers a packet, no acknowledgements.
	r := transportfigures.UDP.Out(60, 60*32, 60)
	require.Equal(t, transportfigures.Rate{Bytes: 60 * (32 + 28), Packets: 60}, r)
	// WebRTC: 93 B a packet and 1.5 of padding on average, and a 93-B
	// SACK every second datagram received.
	r = transportfigures.WebRTC.Out(60, 60*32, 60)
	require.Equal(t, transportfigures.Rate{Bytes: 60*(32+93+1.5) + 30*93, Packets: 90}, r)
	// QUIC: 58 B a packet, one more of DATAGRAM length from 64 B on, and
	// a 55-B ACK every 2.5 datagrams received.
	require.Equal(t, transportfigures.Rate{Bytes: 60*(32+58) + 24*55, Packets: 84}, transportfigures.QUIC.Out(60, 60*32, 60))
	require.Equal(t, transportfigures.Rate{Bytes: 60*(200+59) + 24*55, Packets: 84}, transportfigures.QUIC.Out(60, 60*200, 60))
	// Nothing sent: acknowledgements only.
	require.Equal(t, transportfigures.Rate{Bytes: 30 * 93, Packets: 30}, transportfigures.WebRTC.Out(0, 0, 60))
}

func ExampleOverhead_Line() {
	// A pong player's second over WebRTC: 65 datagrams of 15 B each way.
	fmt.Println(transportfigures.WebRTC.Line(65, 65*15, 65, 65*15))
	// Output: out 10.14 kB/s in 98 pkt/s, in 10.14 kB/s in 98 pkt/s; 10.4x the payload's 1.95 kB/s (WebRTC, computed)
}
