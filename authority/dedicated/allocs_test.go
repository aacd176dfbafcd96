package dedicated

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// TestLoopFrameAllocs: a frame of the host command (the host's AdvanceFrame,
// the watcher, the game's announcement to every client) allocates nothing
// at steady state, with two clients playing.
func TestLoopFrameAllocs(t *testing.T) {
	clock := local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	network, err := local.NewNetwork(local.Config{Now: clock.Now, Link: local.Link{Latency: 20 * time.Millisecond}})
	require.NoError(t, err)
	he, err := network.Endpoint("host")
	require.NoError(t, err)
	g := Sim[line, int8]{Players: 2, Simulate: step, Announce: func(dst []byte, f rollnet.Frame, crc uint32) []byte {
		return append(dst, byte(f), byte(crc))
	}}
	net := rollnet.NetConfig{Now: clock.Now}
	an, err := greeting.NewAnnouncer(he, greeting.Announcement{Players: 2, Grace: authority.DefaultGrace, Now: clock.Now})
	require.NoError(t, err)
	h, err := g.open(an, "r", limits{inputAhead: 32, packets: 64, joins: 4, grace: time.Second}, net)
	require.NoError(t, err)
	var clients []*authority.Client[line, int8]
	for _, name := range []string{"a", "b"} {
		e, err := network.Endpoint(name)
		require.NoError(t, err)
		c, err := authority.NewClient[line](authority.ClientConfig{Host: "host", Players: 2, Net: net}, e, step)
		require.NoError(t, err)
		clients = append(clients, c)
	}
	w := watcher{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	a := announcer{say: g.Announce, an: an, buf: make([]byte, 0, transport.MaxDatagram)}
	var frameErr error
	frame := func() {
		clock.Advance(time.Second / 60)
		if err := h.AdvanceFrame(); err != nil && frameErr == nil {
			frameErr = err // checked after: require inside the measured frame allocates now and then
		}
		w.watch(h)
		a.announce(h, 60)
		for _, c := range clients {
			if c.Synchronized() {
				_ = c.AddLocalInput(0, 1)
			}
			_, _ = c.Update(time.Second / 60)
		}
	}
	for range 300 {
		frame()
	}
	require.NoError(t, frameErr)
	require.Equal(t, 2, h.Stats().Clients)
	allocs.RequireZero(t, 300, frame, "300 frames of the host command with two clients")
	require.NoError(t, frameErr)
}
