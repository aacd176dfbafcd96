//go:build !js

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	pionturn "github.com/pion/turn/v5"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/signaling/turn"
)

// The command with -turn-listen runs a relay that accepts the credentials
// its own signaling server mints at join, and counts in GET /turn and in
// the metrics.
func TestRunEmbeddedTURNRelay(t *testing.T) {
	metrics := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	var stderr bytes.Buffer
	env := func(k string) string { return map[string]string{"ROLLNET_TURN_SECRET": "t"}[k] }
	go func() {
		errc <- run(ctx, []string{"-addr", "127.0.0.1:0", "-turn-listen", "127.0.0.1:0", "-turn-realm", "test",
			"-turn-ports", "40000-40100", "-turn-allow-loopback", "-metrics", metrics},
			&bytes.Buffer{}, &stderr, env, func(a string) { addrc <- a })
	}()
	addr := recv(t, addrc, "the server's address")
	c, err := client.Dial(ctx, "ws://"+addr+"/room/a", client.Config{})
	require.NoError(t, err)
	ice := c.ICEServers()
	require.Len(t, ice, 1)
	require.Len(t, ice[0].URLs, 2, "UDP and TCP")
	require.True(t, strings.HasSuffix(ice[0].Username, ":"+c.ID()), ice[0].Username)

	// A raw TURN client allocates with the minted credentials.
	server := strings.TrimSuffix(strings.TrimPrefix(ice[0].URLs[0], "turn:"), "?transport=udp")
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	require.NoError(t, err)
	defer pc.Close()
	tc, err := pionturn.NewClient(&pionturn.ClientConfig{TURNServerAddr: server, Conn: pc,
		Username: ice[0].Username, Password: ice[0].Credential, Realm: "test"})
	require.NoError(t, err)
	defer tc.Close()
	require.NoError(t, tc.Listen())
	relayConn, err := tc.Allocate()
	require.NoError(t, err)
	port := relayConn.LocalAddr().(*net.UDPAddr).Port
	require.GreaterOrEqual(t, port, 40000)
	require.LessOrEqual(t, port, 40100)

	resp, err := http.Get("http://" + addr + "/turn")
	require.NoError(t, err)
	var st turn.Stats
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	resp.Body.Close()
	require.Equal(t, 1, st.Allocations)
	code, body := get(t, "http://"+metrics+"/metrics")
	require.Equal(t, http.StatusOK, code)
	for _, m := range []string{"rollnet_turn_allocations 1\n", "rollnet_turn_allocations_total 1\n", "rollnet_turn_tcp_conns 0\n",
		`rollnet_turn_refused_total{reason="forged"} 0` + "\n", "rollnet_signal_clients 1\n"} {
		require.Contains(t, body, m)
	}
	require.NoError(t, relayConn.Close())

	require.NoError(t, c.Close())
	cancel()
	require.NoError(t, recv(t, errc, "run to return"))
	http.DefaultClient.CloseIdleConnections()
	require.Contains(t, stderr.String(), "turn relay listening")
	require.Contains(t, stderr.String(), "turn relay stats")
}

func TestRunTURNFlagErrors(t *testing.T) {
	secret := func(k string) string { return map[string]string{"ROLLNET_TURN_SECRET": "t"}[k] }
	none := func(string) string { return "" }
	for _, c := range []struct {
		args []string
		env  func(string) string
	}{
		{[]string{"-turn-listen", "127.0.0.1:0"}, none}, // no secret
		{[]string{"-turn-listen", "0.0.0.0:0"}, secret}, // no public IP
		{[]string{"-turn-listen", "127.0.0.1:0", "-turn-public-ip", "nowhere"}, secret},
		{[]string{"-turn-listen", "127.0.0.1:0", "-turn-ports", "5000"}, secret},
		{[]string{"-turn-listen", "127.0.0.1:0", "-turn-ports", "6000-5000"}, secret},
		{[]string{"-turn-listen", "nohost"}, secret},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		code := runMain(ctx, append([]string{"-addr", "127.0.0.1:0"}, c.args...), &bytes.Buffer{}, &bytes.Buffer{}, c.env)
		cancel()
		require.Equal(t, 2, code, "%q: a bad flag value exits 2", c.args)
	}
}
