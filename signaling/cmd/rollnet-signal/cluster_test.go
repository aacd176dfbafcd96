//go:build !js

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/signaling/client"
)

// freeAddr returns a loopback address nobody listens on (for -metrics,
// whose address run does not report).
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// TestRunNATS: two commands with -nats share a room; -metrics serves the
// counts, /healthz and /readyz; cancelling one (what SIGTERM does) closes
// its client with going away and tells the peer on the other at once.
func TestRunNATS(t *testing.T) {
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	require.NoError(t, err)
	ns.Start()
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	require.True(t, ns.ReadyForConnections(10*time.Second))
	natsURL := "nats://" + ns.Addr().String()

	type instance struct {
		addr, metrics string
		cancel        context.CancelFunc
		errc          chan error
	}
	start := func() *instance {
		ctx, cancel := context.WithCancel(context.Background())
		in := &instance{metrics: freeAddr(t), cancel: cancel, errc: make(chan error, 1)}
		addrc := make(chan string, 1)
		go func() {
			in.errc <- run(ctx, []string{"-addr", "127.0.0.1:0", "-nats", natsURL, "-metrics", in.metrics},
				io.Discard, &bytes.Buffer{}, func(string) string { return "" }, func(a string) { addrc <- a })
		}()
		select {
		case in.addr = <-addrc:
		case err := <-in.errc:
			t.Fatal(err)
		case <-time.After(waitBound):
			t.Fatalf("waited %v for the server to listen", waitBound)
		}
		t.Cleanup(func() { cancel(); recv(t, in.errc, "the instance to stop") })
		return in
	}
	one, two := start(), start()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, err := client.Dial(ctx, "ws://"+one.addr+"/room/match", client.Config{})
	require.NoError(t, err)
	defer a.Close()
	b, err := client.Dial(ctx, "ws://"+two.addr+"/room/match", client.Config{})
	require.NoError(t, err)
	defer b.Close()
	require.Equal(t, []string{a.ID()}, b.Peers())
	ev := recv(t, a.Events(), "a to hear b join")
	require.Equal(t, client.PeerJoined, ev.Kind)
	require.NoError(t, a.Send(ctx, b.ID(), client.Signal{Kind: client.SignalOffer, Payload: []byte(`{"sdp":"x"}`)}))
	ev = recv(t, b.Events(), "b to receive a's offer")
	require.Equal(t, client.SignalReceived, ev.Kind)

	// A plain GET where a WebSocket upgrade belongs is refused at the
	// upgrade, and counted so.
	code, _ := get(t, "http://"+two.addr+"/room/plain")
	require.Equal(t, http.StatusUpgradeRequired, code)

	code, body := get(t, "http://"+two.metrics+"/metrics")
	require.Equal(t, http.StatusOK, code)
	for _, want := range []string{
		"rollnet_signal_clients 1", "rollnet_signal_relayed_total 1",
		fmt.Sprintf("rollnet_signal_relayed_bytes_total %d", len(`{"v":1,"type":"signal","peer":"0123456789abcdef","kind":"offer","payload":{"sdp":"x"}}`)),
		"rollnet_signal_cluster_instances 2", "rollnet_signal_cluster_rooms 1", "rollnet_signal_cluster_ready 1",
		`rollnet_signal_rejected_total{reason="join_rate"} 0`, `rollnet_signal_closed_total{reason="room_full"} 0`,
		`rollnet_signal_rejected_total{reason="upgrade"} 1`, `rollnet_signal_closed_total{reason="cluster_unavailable"} 0`,
		"rollnet_signal_pairing_seconds_count 1", "go_goroutines", "process_resident_memory_bytes",
	} {
		require.Contains(t, body, want)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		code, _ := get(t, "http://"+two.metrics+path)
		require.Equal(t, http.StatusOK, code, path)
	}

	begin := time.Now()
	two.cancel() // SIGTERM
	for open := true; open; {
		_, open = recv2(t, b.Events(), "b's events to end as its instance closes")
	}
	require.ErrorIs(t, b.Err(), client.ErrServerClosing, "going away: join again elsewhere")
	ev = recv(t, a.Events(), "a to hear b leave")
	require.Equal(t, client.PeerLeft, ev.Kind)
	def, err := signaling.ServerConfig{}.Check()
	require.NoError(t, err)
	require.Less(t, time.Since(begin), def.Cluster.DeadAfter, "told by the leave, not found dead")
	require.NoError(t, recv(t, two.errc, "the instance to stop"))
	two.errc <- nil // for the cleanup
	http.DefaultClient.CloseIdleConnections()
}
