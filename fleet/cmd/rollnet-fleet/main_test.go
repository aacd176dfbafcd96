//go:build !js

package main

import (
	"bytes"
	"context"
	"flag"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/internal/fleethost"
	"github.com/rollnet/rollnet/internal/natstest"
)

// TestUsage: -h prints what the command does, its modes, examples and
// every flag under its group, to stdout (it was Go's bare flag list); a
// flag error is a usage error (status 2) of one line.
func TestUsage(t *testing.T) {
	var out, errs bytes.Buffer
	err := run(context.Background(), []string{"-h"}, &out, &errs)
	require.ErrorIs(t, err, flag.ErrHelp)
	for _, want := range []string{"usage: rollnet-fleet", "embedded NATS", "-play -signal ws://", "Exit status", "The local fleet:", "-hosts int", "With -play", "-room string", "With -drain", "-nats-creds FILE"} {
		require.Contains(t, out.String(), want)
	}
	require.Empty(t, errs.String())
	out.Reset()
	err = run(context.Background(), []string{"-bogus"}, &out, &errs)
	require.ErrorIs(t, err, errUsage)
	require.Contains(t, err.Error(), "-bogus")
	require.Empty(t, out.String())
}

// TestDrain: -drain ID -nats URL writes the host's drain order, and the
// host drains; the flags' errors are usage errors.
func TestDrain(t *testing.T) {
	e := natstest.Start(t)
	cfg := fleet.Config{Tuning: fleet.Tuning{Heartbeat: 50 * time.Millisecond, DeadAfter: time.Second, OpTimeout: 10 * time.Second}}
	m, err := fleethost.Join(e.Connect(t), fleethost.HostInfo{ID: "h1", Version: "1", Games: []fleet.Game{{Name: "court", Clients: 2}},
		QUIC: "127.0.0.1:4433", Capacity: fleet.Capacity{Matches: 1, Clients: 2}}, cfg, nil)
	require.NoError(t, err)
	defer func() { _ = m.Close() }()
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"-drain", "h1", "-nats", e.URL()}, &out, &out))
	require.Contains(t, out.String(), "ordered host h1 of fleet rollnet to drain")
	deadline := time.Now().Add(10 * time.Second)
	for !m.Draining() {
		require.True(t, time.Now().Before(deadline), "the host does not drain")
		time.Sleep(5 * time.Millisecond)
	}
	for _, args := range [][]string{
		{"-drain", "h1"},
		{"-nats", e.URL()},
		{"-drain", "h1", "-nats", "http://x"},
		{"-drain", "h1", "-nats", e.URL(), "-nats-user", "op"},
		{"-drain", "no/such", "-nats", e.URL()},
	} {
		require.ErrorIs(t, run(context.Background(), args, &out, &out), errUsage, "%q", args)
	}
}
