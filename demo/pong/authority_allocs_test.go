package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/transport/local"
)

// authPair is the authority mode's host and client over an in-memory
// network on a fake clock.
type authPair struct {
	clock *local.Clock
	h     *authHost
	c     *authClient
}

func newAuthPair(t *testing.T, link local.Link) *authPair {
	t.Helper()
	clock := local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	network, err := local.NewNetwork(local.Config{Now: clock.Now, Link: link, Seed: 3})
	require.NoError(t, err)
	he, err := network.Endpoint("host")
	require.NoError(t, err)
	ce, err := network.Endpoint("client")
	require.NoError(t, err)
	o := options{fps: 60, frames: 0, seed: 9, grace: 20 * time.Second, timeout: 20 * time.Second, name: "h"}
	h, err := newAuthHost(&conn{tr: he, peer: "client"}, o, clock.Now)
	require.NoError(t, err)
	o.name = "c"
	c, err := newAuthClient(&conn{tr: ce, peer: "host"}, o, clock.Now)
	require.NoError(t, err)
	c.listen = true
	return &authPair{clock: clock, h: h, c: c}
}

func (p *authPair) tick(t *testing.T) {
	p.clock.Advance(time.Second / 60)
	require.NoError(t, p.h.Tick(Bot(p.h.State(), 0)))
	require.NoError(t, p.c.Tick(Bot(p.c.State(), 1)))
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
	t.Logf("mismatches while measured: %d", p.c.cl.Stats().Mismatches-before)
}
