package main

import (
	"context"
	"net"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/signaling/turn"
)

// Two demo processes with -relay play through the TURN relay a signaling
// server hands out (what rollnet-signal -turn-listen runs), and agree.
func TestTwoProcessesRelayOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two processes")
	}
	secret := []byte("pong-relay")
	relay, err := turn.Listen(turn.Config{Secret: secret, PublicIP: net.IPv4(127, 0, 0, 1),
		RelayBind: "127.0.0.1", AllowLoopback: true}, "127.0.0.1:0")
	require.NoError(t, err)
	defer relay.Close()
	srv, err := signaling.NewServer(signaling.ServerConfig{
		ICEServers: []client.ICEServer{{URLs: relay.URLs()}}, TURNSecret: secret})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(hs.URL, "http")

	exe, err := os.Executable()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	outs := make([]string, 2)
	codes := make([]int, 2)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Go(func() {
			cmd := demoCommand(ctx, exe, "-signal", url, "-room", "relayed", "-relay",
				"-headless", "-frames", "300", "-fps", "120", "-timeout", "30s")
			cmd.Env = append(os.Environ(), childEnv+"=1")
			out, _ := cmd.CombinedOutput()
			outs[i], codes[i] = string(out), cmd.ProcessState.ExitCode()
		})
	}
	wg.Wait()
	out := outs[0] + outs[1]
	t.Logf("both players:\n%s", out)
	require.NoError(t, ctx.Err(), "waited 60 s for both relayed players to finish: killed")
	require.Equal(t, []int{exitOK, exitOK}, codes)
	require.Equal(t, 2, strings.Count(out, "frames played       300"))
	require.Equal(t, 2, strings.Count(out, "(checksums agree)"))
	require.Equal(t, 2, strings.Count(out, "  path                relay over UDP (relay to relay)"), "both reports name the relay")
	st := relay.Stats()
	t.Logf("relay: %+v", st)
	require.GreaterOrEqual(t, st.Allocated, uint64(2), "both went through the relay")
}

// -relay with a signaling server that hands out no TURN server fails at
// once and says why, instead of waiting for ICE to fail.
func TestRelayWithoutTURNFails(t *testing.T) {
	srv, err := startSignalServer()
	require.NoError(t, err)
	defer srv.close()
	out, status := demo(t, 30*time.Second, "-signal", srv.url, "-room", "x", "-relay", "-headless", "-timeout", "10s")
	require.Equal(t, exitFailure, status, out)
	require.Contains(t, out, "hands out no TURN relay")
}
