//go:build !js

package dedicated

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

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
		{append([]string{"-fleet", "http://x"}, q...), "-fleet wants nats://"},
		{append([]string{"-fleet", "nats://127.0.0.1:4222", "-capacity", "0"}, q...), "-capacity must be >= 1"},
		{append([]string{"-fleet", "nats://127.0.0.1:4222", "-drain-deadline", "-1s"}, q...), "-drain-deadline"},
		{append([]string{"-fleet", "nats://127.0.0.1:4222", "-fleet-heartbeat", "2s", "-fleet-dead-after", "1s"}, q...), "under two heartbeats"},
		{[]string{"-metrics", "127.0.0.1:0"}, "-metrics and -fleet-id need -fleet"},
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
