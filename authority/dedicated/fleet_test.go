//go:build !js

package dedicated

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/natstest"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// TestFleetBadFlags: a fleet host's wrong command lines are usage errors
// (status 2) saying what is wrong; an unreachable NATS is a failure
// (status 3) naming it.
func TestFleetBadFlags(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("0123456789abcdef0123"), 0o600))
	q := []string{"-quic", "127.0.0.1:0", "-webrtc=false", "-token-secret-file", secret}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-fleet", "nats://127.0.0.1:4222"}, "-fleet needs -quic and -token-secret-file"},
		{append([]string{"-fleet", "http://x"}, q...), "want nats://HOST:PORT or tls://HOST:PORT"},
		{append([]string{"-fleet", "nats://u:p@127.0.0.1:4222"}, q...), "credentials in the URL"},
		{append([]string{"-fleet", "nats://127.0.0.1:4222", "-nats-user", "h1"}, q...), "-nats-user and -nats-password-file go together"},
		{append([]string{"-fleet", "nats://127.0.0.1:4222", "-nats-creds", "a", "-nats-nkey", "b"}, q...), "exclude one another"},
		{append([]string{"-fleet", "nats://127.0.0.1:4222", "-nats-cert", "a"}, q...), "-nats-cert and -nats-key go together"},
		{[]string{"-nats-creds", "a"}, "the -nats-* flags need -fleet"},
		{append([]string{"-fleet", "nats://127.0.0.1:4222", "-capacity", "0"}, q...), "-capacity must be >= 1"},
		{append([]string{"-fleet", "nats://127.0.0.1:4222", "-drain-deadline", "-1s"}, q...), "-drain-deadline"},
		{append([]string{"-fleet", "nats://127.0.0.1:4222", "-fleet-heartbeat", "2s", "-fleet-dead-after", "1s"}, q...), "under two heartbeats"},
		{[]string{"-metrics", "127.0.0.1:0"}, "-metrics, -fleet-id and the -nats-* flags need -fleet"},
	} {
		var out, errs bytes.Buffer
		status := Main("rollnet-host", testGames, tc.args, &out, &errs)
		require.Equal(t, exitUsage, status, "%v: %s", tc.args, errs.String())
		require.Contains(t, errs.String(), tc.want, "%v", tc.args)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0") // a port no NATS listens on
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	var out, errs bytes.Buffer
	status := Main("rollnet-host", testGames, append([]string{"-game", "line", "-fleet", "nats://" + addr}, q...), &out, &errs)
	require.Equal(t, exitFailure, status, errs.String())
	require.Contains(t, errs.String(), "-fleet nats://"+addr)
}

// TestFleetGate: the QUIC admission check of a fleet host admits a
// client of a running room always, a client of a new room while the host
// has room and does not drain, and refuses the others with a reason that
// says to ask the fleet again.
func TestFleetGate(t *testing.T) {
	g := &fleetGate{rooms: map[string]bool{}, capacity: 1}
	claims := func(room string) connecttoken.Claims { return connecttoken.Claims{Room: room} }
	require.NoError(t, g.admit(claims("a")))
	g.set("a", true)
	require.NoError(t, g.admit(claims("a")), "a running room")
	require.ErrorIs(t, g.admit(claims("b")), errGateFull)
	g.set("a", false)
	require.NoError(t, g.admit(claims("b")), "the match ended: room again")
	g.set("b", true)
	g.drain()
	require.NoError(t, g.admit(claims("b")), "a running room, draining")
	g.set("b", false)
	require.ErrorIs(t, g.admit(claims("b")), errGateDraining)
	require.Contains(t, errGateDraining.Error(), "ask the fleet again")
}

// TestFleetViewKeysSnakeCase: every key of a fleet host's /fleet JSON is
// snake_case (its counts were "Running", "RefusedFull" beside
// "capacity_matches").
func TestFleetViewKeysSnakeCase(t *testing.T) {
	b, err := json.Marshal(fleetStats{Matches: []fleetMatchView{{}}})
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	keys := []string{}
	for k := range doc {
		keys = append(keys, k)
	}
	for _, m := range doc["matches"].([]any) {
		for k := range m.(map[string]any) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		require.Regexp(t, `^[a-z0-9_]+$`, k)
	}
}

// TestFleetHostLeavesPromptlyWithNATSDown: a fleet host told to stop
// while its NATS is down says it is shutting down and exits without
// waiting out key-value timeouts (it took 8 s of heartbeat warnings, and
// never said why it lingered).
func TestFleetHostLeavesPromptlyWithNATSDown(t *testing.T) {
	e := natstest.Start(t)
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("0123456789abcdef0123"), 0o600))
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, "rollnet-host", testGames, []string{"-game", "line", "-fleet", e.URL(), "-fleet-id", "h1",
			"-quic", "127.0.0.1:0", "-webrtc=false", "-token-secret-file", secret, "-stats-every", "0",
			"-fleet-heartbeat", "100ms", "-fleet-dead-after", "500ms"}, logs, func(a string) { ready <- a })
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("the host stopped: %v\n%s", err, logs.String())
	}
	e.Stop()
	cancel()
	start := time.Now()
	require.NoError(t, <-done)
	took := time.Since(start)
	out := logs.String()
	t.Logf("exited %v after the stop with NATS down:\n%s", took.Round(time.Millisecond), out)
	require.Contains(t, out, "shutting down")
	require.Less(t, took, 4*time.Second, "the host waited out NATS")
}
