package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// authPair is the authority mode's host and client over an in-memory
// network on a fake clock.
type authPair struct {
	clock *local.Clock
	h, c  *netMatch
}

func newAuthPair(t *testing.T, link local.Link) *authPair {
	t.Helper()
	clock := local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	network, err := local.NewNetwork(local.Config{Now: clock.Now, Link: link, Seed: 3})
	require.NoError(t, err)
	o := options{mode: modeAuthority, fps: 60, seed: 9, grace: 20 * time.Second, timeout: 20 * time.Second, name: "h"}
	p := &authPair{clock: clock}
	// One side of the pair over its endpoint: the host (slot 0) or its
	// client.
	side := func(name, other string, start func(netplay.Config, func(*State, []Input, rollnet.Frame), ...netplay.Option[State, Input]) (*netplay.Match[State, Input], error)) *netMatch {
		ep, err := network.Endpoint(name)
		require.NoError(t, err)
		cfg := netConfig(o)
		cfg.Signal, cfg.Transport, cfg.Peers, cfg.Now = "", ep, []transport.Peer{transport.Peer(other)}, clock.Now
		if name == "host" {
			cfg.LocalPlayers = 1
		}
		nm, err := start(cfg, simulate)
		require.NoError(t, err)
		m, err := newNetMatch(nm, o, clock.Now)
		require.NoError(t, err)
		t.Cleanup(func() { _ = m.Close() })
		require.NoError(t, m.Tick(0))
		return m
	}
	p.h = side("host", "client", netplay.Host[State, Input])
	o.name = "c"
	p.c = side("client", "host", netplay.Connect[State, Input])
	return p
}

func (p *authPair) tick(t *testing.T) {
	p.clock.Advance(time.Second / 60)
	// Not require: t.Helper's bookkeeping allocates now and then.
	if err := p.h.Tick(Bot(p.h.State(), 0)); err != nil {
		t.Fatalf("host: %v", err)
	}
	if err := p.c.Tick(Bot(p.c.State(), 1)); err != nil {
		t.Fatalf("client: %v", err)
	}
}

// TestAuthorityTickAllocs: a frame of the authority mode (the host's
// step, the client's update, playout and composition, the network)
// allocates nothing at steady state, corrections included, and the
// client verified the host's states by their checksums.
func TestAuthorityTickAllocs(t *testing.T) {
	p := newAuthPair(t, local.Link{Latency: 40 * time.Millisecond, Jitter: 8 * time.Millisecond, Loss: 0.02})
	for range 600 {
		p.tick(t)
	}
	before := authClientOf(p.c.nm).Stats().Mismatches
	allocs.RequireZero(t, 600, func() { p.tick(t) }, "600 ticks of the authority mode's host and client")
	s := p.c.nm.Stats()
	require.Greater(t, s.Compared, uint64(100), "the host's checksums were checked")
	require.Equal(t, s.Compared, s.Agreed)
	require.Empty(t, p.c.st.Desync)
	t.Logf("mismatches while measured: %d; states checked %d", authClientOf(p.c.nm).Stats().Mismatches-before, s.Compared)
}

// TestAuthorityDesyncCaught: a client whose copy of a host state is not
// the host's (-inject-desync) is caught by the protocol's own checksums:
// its status names the desync and its report fails with exit status 1.
func TestAuthorityDesyncCaught(t *testing.T) {
	p := newAuthPair(t, local.Link{Latency: 20 * time.Millisecond})
	p.c.o.inject = 200
	for range 600 {
		p.tick(t)
	}
	require.Contains(t, p.c.st.Desync, "did not match its checksum")
	r := p.c.Report()
	require.Positive(t, r.Desyncs)
	require.GreaterOrEqual(t, r.First, int32(200))
	require.Equal(t, exitDesync, r.status())
}

// TestAuthorityHostScreenSaysWhoChecks: the host compares no checksums
// (its clients check its states), so its screen says that, not "no
// checksums compared yet" for the whole match.
func TestAuthorityHostScreenSaysWhoChecks(t *testing.T) {
	p := newAuthPair(t, local.Link{Latency: 20 * time.Millisecond})
	for range 300 {
		p.tick(t)
	}
	v, sc := simView(t, 0)
	s := p.h.State()
	v.draw(s, p.h.HUD())
	all := strings.Join(screenText(sc), "\n")
	require.Contains(t, all, "states checked by its clients")
	require.NotContains(t, all, "no checksums compared yet")
	require.Positive(t, p.c.nm.Stats().Compared, "its client did check")
}

// TestAuthorityHostSaysRejoinUnused: -rejoin on the process that ends up
// hosting is not silently ignored: a host keeps no token, and it says so.
func TestAuthorityHostSaysRejoinUnused(t *testing.T) {
	p := newAuthPair(t, local.Link{Latency: 20 * time.Millisecond})
	var out strings.Builder
	p.h.o.rejoin, p.h.out = "left.rejoin", &out
	for range 120 {
		p.tick(t)
	}
	require.Contains(t, out.String(), "pong: -rejoin left.rejoin unused: this process hosts the match, and a host keeps no token")
}

// TestAuthorityClientScreenOneNumbering: a client that joined a running
// match shows the match's frame (the host's numbering) beside its
// prediction, and labels the frames it played since joining, where its
// screen once put its own count ("frame 288") beside the host's
// ("predicting 504").
func TestAuthorityClientScreenOneNumbering(t *testing.T) {
	p := newAuthPair(t, local.Link{Latency: 20 * time.Millisecond})
	for range 200 { // the host plays alone: its client joins late
		p.clock.Advance(time.Second / 60)
		require.NoError(t, p.h.Tick(Bot(p.h.State(), 0)))
	}
	for range 300 {
		p.tick(t)
	}
	require.Greater(t, p.c.from, rollnet.Frame(150), "the client joined a running match")
	v, sc := simView(t, 1)
	h := p.c.HUD()
	v.draw(p.c.State(), h)
	all := strings.Join(screenText(sc), "\n")
	predicting := authClientOf(p.c.nm).Frame()
	want := fmt.Sprintf("frame %d (%d played since joining)  predicting %d  buffer", p.c.played, p.c.frames(), predicting)
	require.Contains(t, all, want)
	require.Less(t, predicting-p.c.played, rollnet.Frame(20), "shown and predicted frames are of one numbering")
	require.Equal(t, int32(p.c.played-p.c.from+1), h.Frame, "-frames still counts the frames played")
}
