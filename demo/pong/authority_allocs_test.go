package main

import (
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
	bad   int // checksum messages that did not parse
	clock *local.Clock
	h     *authHost
	c     *authClient
}

func newAuthPair(t *testing.T, link local.Link) *authPair {
	t.Helper()
	clock := local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	network, err := local.NewNetwork(local.Config{Now: clock.Now, Link: link, Seed: 3})
	require.NoError(t, err)
	o := options{fps: 60, frames: 0, seed: 9, grace: 20 * time.Second, timeout: 20 * time.Second, name: "h"}
	p := &authPair{clock: clock}
	// One side of the pair over its endpoint: the host (slot 0) or its
	// client, with the checksums each sends the other.
	side := func(name, other string, start func(netplay.Config, func(*State, []Input, rollnet.Frame)) (*netplay.Match[State, Input], error)) *netplay.Match[State, Input] {
		ep, err := network.Endpoint(name)
		require.NoError(t, err)
		cfg := authConfig(o)
		cfg.Signal, cfg.Transport, cfg.Peers, cfg.Now = "", ep, []transport.Peer{transport.Peer(other)}, clock.Now
		crcs := make([]uint32, 0, maxSums)
		cfg.OnMessage = func(seat int, _ string, b []byte) {
			first, cs, err := parseSums(b, crcs[:0])
			if err != nil {
				p.bad++ // no require here: t.Helper's bookkeeping allocates
				return
			}
			if p.h != nil && name == "host" {
				p.h.onSums(seat, first, cs)
			} else if p.c != nil && name == "client" {
				p.c.onSums(seat, first, cs)
			}
		}
		if name == "host" {
			cfg.LocalPlayers = 1
		}
		nm, err := start(cfg, simulate)
		require.NoError(t, err)
		nm.OnSession(func() error { *nm.State() = NewState(o.seed); return nil })
		t.Cleanup(func() { _ = nm.Close() })
		_, err = nm.AdvanceFrame(0)
		require.NoError(t, err)
		return nm
	}
	hm := side("host", "client", netplay.Host[State, Input])
	p.h, err = newAuthHost(hm, o, clock.Now)
	require.NoError(t, err)
	o.name = "c"
	cm := side("client", "host", netplay.Connect[State, Input])
	p.c, err = newAuthClient(cm, o, clock.Now)
	require.NoError(t, err)
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
// step and checksums, the client's update, playout, composition, hitch
// count and checksums, the network) allocates nothing at steady state,
// corrections included.
func TestAuthorityTickAllocs(t *testing.T) {
	p := newAuthPair(t, local.Link{Latency: 40 * time.Millisecond, Jitter: 8 * time.Millisecond, Loss: 0.02})
	for range 600 {
		p.tick(t)
	}
	before := p.c.cl.Stats().Mismatches
	allocs.RequireZero(t, 600, func() { p.tick(t) }, "600 ticks of the authority mode's host and client")
	require.Greater(t, p.c.sums.compared, 500, "the checksums were exchanged")
	require.Zero(t, p.c.sums.desyncs())
	require.Zero(t, p.bad, "every checksum message parsed")
	t.Logf("mismatches while measured: %d", p.c.cl.Stats().Mismatches-before)
}
