//go:build !js

package main

import (
	"net"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/localsignal"
	"github.com/rollnet/rollnet/signaling"
)

// signalInstance starts a signaling server that shares its rooms with the
// others on natsURL (what rollnet-signal -nats does), on a loopback port.
func signalInstance(t *testing.T, natsURL string) string {
	t.Helper()
	nc, err := nats.Connect(natsURL, nats.Name("pong-test"))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	srv, err := signaling.NewServer(signaling.ServerConfig{NATS: nc})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := localsignal.Serve(srv, ln, srv)
	t.Cleanup(s.Close)
	return s.URL()
}

// TestPlayersOnTwoInstances: two signaling instances share rooms over one
// (embedded) NATS; the left player joins the room on one, the right player
// the same room on the other, and they play their match over WebRTC and
// agree, as if there were one server.
func TestPlayersOnTwoInstances(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two processes and two signaling instances")
	}
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	require.NoError(t, err)
	ns.Start()
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	require.True(t, ns.ReadyForConnections(10*time.Second))
	natsURL := "nats://" + ns.Addr().String()
	one, two := signalInstance(t, natsURL), signalInstance(t, natsURL)
	require.NotEqual(t, one, two)

	_, ctx := processTest(t)
	args := []string{"-room", "spread", "-headless", "-frames", "360", "-fps", "120", "-timeout", "20s"}
	left, right := startPair(ctx, t, args, []string{"-signal", one, "-name", "alice"}, []string{"-signal", two, "-name", "bob"})
	left.end(t)
	right.end(t)
	out := left.out.String() + right.out.String()
	t.Logf("left (instance one), right (instance two):\n%s", out)
	require.Equal(t, exitOK, left.cmd.ProcessState.ExitCode())
	require.Equal(t, exitOK, right.cmd.ProcessState.ExitCode())
	require.Equal(t, 2, strings.Count(out, "frames played       360"))
	require.Equal(t, 2, strings.Count(out, "(checksums agree)"))
	// Seated by their ids: either way, the same on both.
	require.Equal(t, 2, strings.Count(out, "players             alice (left) vs bob (right)")+strings.Count(out, "players             bob (left) vs alice (right)"))
}
