package turn

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/race"
)

// The relay socket's wrapper (expiry check, slot accounting) is on every
// relayed packet: it allocates nothing beyond what the socket does.
func TestRelayConnAddsNoAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector allocates")
	}
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	require.NoError(t, err)
	defer pc.Close()
	a := &allocator{r: &Relay{cfg: Config{Now: time.Now}}, perUser: map[string]int{}, conns: map[*relayConn]struct{}{}}
	rc := &relayConn{PacketConn: pc, a: a, cred: credential{expiry: time.Now().Add(time.Hour), user: "u"}}
	to, msg, buf := pc.LocalAddr(), make([]byte, 64), make([]byte, 1500)

	// Each measures 101 calls; the writes queue the reads' packets.
	writeRaw := testing.AllocsPerRun(100, func() { _, _ = pc.WriteTo(msg, to) })
	writeWrapped := testing.AllocsPerRun(100, func() { _, _ = rc.WriteTo(msg, to) })
	readRaw := testing.AllocsPerRun(100, func() { _, _, _ = pc.ReadFrom(buf) })
	readWrapped := testing.AllocsPerRun(100, func() { _, _, _ = rc.ReadFrom(buf) })
	require.Equal(t, writeRaw, writeWrapped, "WriteTo")
	require.Equal(t, readRaw, readWrapped, "ReadFrom")
}
