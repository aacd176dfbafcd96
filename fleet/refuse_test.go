//go:build !js

package fleet_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/fleet/fleetlocal"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport/quic"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// TestDrainingHostRefusesAtOnce: a client placed on a host just before an
// operator drains it (fleet.Drain, rollnet-fleet -drain) comes for a new match:
// the host refuses its connection at once, saying it drains, where the
// client heard nothing until its connect timeout. A bot plays on the host
// meanwhile, so the draining host stays up (its running match goes on).
func TestDrainingHostRefusesAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("a fleet on loopback, real time")
	}
	f, err := fleetlocal.Start(fleetlocal.Options{Hosts: 1, Signals: 1, Capacity: 2, Drain: time.Minute})
	require.NoError(t, err)
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bctx, stopBot := context.WithCancel(ctx)
	botDone := make(chan fleetlocal.Outcome, 1)
	go func() { botDone <- fleetlocal.Play(bctx, f.Signals[0], "running", "1", -1, 10*time.Second) }()
	defer func() { stopBot(); <-botDone }()
	rep, err := netplay.Place(ctx, f.Signals[0], fleet.Request{Game: "court", Room: "late", Version: "1"})
	require.NoError(t, err)

	// The operator's drain order, which the host reads at its next beat;
	// then its record says it drains.
	nc, err := f.Connect("operator")
	require.NoError(t, err)
	defer nc.Close()
	require.NoError(t, fleet.Drain(ctx, nc, fleet.Config{}, "h1"))
	kv := bucketAt(t, f)
	for {
		h, _ := hostRecord(t, kv, "h1")
		if h.Draining {
			break
		}
		require.NoError(t, ctx.Err(), "the host never took the drain order: %+v", h)
		time.Sleep(20 * time.Millisecond)
	}

	g, err := connecttoken.ParseGrant(rep.Grant)
	require.NoError(t, err)
	pin, err := quic.ParseHash(rep.SHA256)
	require.NoError(t, err)
	began := time.Now()
	_, err = quic.Dial(ctx, rep.QUIC, quic.Config{Grant: &g, PinSHA256: pin})
	require.ErrorIs(t, err, quic.ErrRefused)
	require.ErrorContains(t, err, "drains")
	t.Logf("refused in %v: %v", time.Since(began).Round(time.Millisecond), err)
}
