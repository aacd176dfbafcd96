package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// TestHostScreenNamesQuitAndSpectator is the authority mode's host with
// its right client and a third client (the spectator's slot), over an
// in-memory network on a fake clock: the host's screen line never marks
// the spectator away or dropped while it watches, and once the right
// client quits cleanly (Close: it says goodbye) the line says it quit,
// never that it dropped (her goodbye alone tells the host: her address
// takes the host's packets on without a word).
func TestHostScreenNamesQuitAndSpectator(t *testing.T) {
	clock := local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	network, err := local.NewNetwork(local.Config{Now: clock.Now, Link: local.Link{Latency: 20 * time.Millisecond}, Seed: 5})
	require.NoError(t, err)
	start := func(name string, begin func(netplay.Config, func(*State, []Input, rollnet.Frame), ...netplay.Option[State, Input]) (*netplay.Match[State, Input], error), peers ...string) *netMatch {
		o := options{mode: modeAuthority, fps: 60, seed: 9, grace: 20 * time.Second, timeout: 20 * time.Second, name: name}
		ep, err := network.Endpoint(name)
		require.NoError(t, err)
		cfg := netConfig(o)
		cfg.Signal, cfg.Transport, cfg.Now = "", ep, clock.Now
		for _, p := range peers {
			cfg.Peers = append(cfg.Peers, transport.Peer(p))
		}
		if name == "hana" {
			cfg.LocalPlayers = 1
		}
		nm, err := begin(cfg, simulate)
		require.NoError(t, err)
		m, err := newNetMatch(nm, o, clock.Now)
		require.NoError(t, err)
		t.Cleanup(func() { _ = m.Close() })
		return m
	}
	h := start("hana", netplay.Host[State, Input], "rita", "sam")
	r := start("rita", netplay.Connect[State, Input], "hana")
	var s *netMatch
	tick := func() {
		t.Helper()
		clock.Advance(time.Second / 60)
		require.NoError(t, h.Tick(Bot(h.State(), 0)), "host")
		if r != nil {
			require.NoError(t, r.Tick(Bot(r.State(), 1)), "right client")
		}
		if s != nil {
			require.NoError(t, s.Tick(0), "spectator")
		}
	}
	for i := 0; r.Side() != 1; i++ {
		require.Less(t, i, 600, "the right client never got its paddle")
		tick()
	}
	s = start("sam", netplay.Connect[State, Input], "hana")
	for i := 0; s.nm.Seat() < 0; i++ {
		require.Less(t, i, 600, "the third client never got its slot")
		tick()
	}
	require.Equal(t, -1, s.Side(), "the third slot is a spectator's")
	for range 60 * 40 { // 40 s: past the join timeout, the drop timeout and the grace window
		tick()
		note := h.HUD().Note
		require.NotRegexp(t, `sam (away|left|dropped|interrupted|quit)`, note, "the host's line marks the spectator gone")
		require.NotContains(t, note, "dropped")
	}
	require.NoError(t, r.Close()) // rita quits (q)
	r = nil
	_, err = network.Endpoint("rita") // the host's sends to her go on, unanswered: only her goodbye says she quit
	require.NoError(t, err)
	var note string
	for i := 0; ; i++ {
		require.Less(t, i, 600, "the host never said rita quit: %q", note)
		clock.Advance(time.Second / 60)
		err := h.Tick(Bot(h.State(), 0))
		_ = s.Tick(0)
		note = h.HUD().Note
		require.NotContains(t, note, "dropped")
		if err != nil {
			require.ErrorIs(t, err, errPeerLeft)
			break
		}
	}
	t.Logf("host at frame %d, news %q", h.nm.Frame(), h.nm.News())
	require.Greater(t, int(h.nm.Frame()), 60*40)
	require.Contains(t, note, "rita quit at frame ")
	for _, n := range h.nm.News() {
		require.NotContains(t, n, "dropped")
	}
}
