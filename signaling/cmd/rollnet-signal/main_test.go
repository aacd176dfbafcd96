//go:build !js

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/signaling/internal/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRunServesAndShutsDown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	var stderr bytes.Buffer
	go func() {
		errc <- run(ctx, []string{"-addr", "127.0.0.1:0", "-stun", "stun:stun.example.org:3478", "-max-room", "2"},
			&bytes.Buffer{}, &stderr, func(string) string { return "" }, func(a string) { addrc <- a })
	}()
	addr := recv(t, addrc, "the server's address")

	resp, err := http.Get("http://" + addr + "/")
	require.NoError(t, err)
	var health struct {
		Protocol int    `json:"protocol"`
		Status   string `json:"status"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&health))
	resp.Body.Close()
	require.Equal(t, wire.ProtocolVersion, health.Protocol)
	require.Equal(t, "ok", health.Status)

	c, err := client.Dial(ctx, "ws://"+addr+"/room/a", client.Config{})
	require.NoError(t, err)
	require.Equal(t, []string{"stun:stun.example.org:3478"}, c.ICEServers()[0].URLs)

	cancel()
	require.NoError(t, recv(t, errc, "run to return"))
	for range c.Events() {
	}
	require.ErrorIs(t, c.Err(), client.ErrServerClosing)
	require.NoError(t, c.Close())
	http.DefaultClient.CloseIdleConnections()
	require.Contains(t, stderr.String(), "rollnet-signal listening")
}

func TestRunMintToken(t *testing.T) {
	var out bytes.Buffer
	env := func(k string) string { return map[string]string{"ROLLNET_SIGNAL_SECRET": "s3cret"}[k] }
	require.NoError(t, run(context.Background(), []string{"-mint-token", "lobby", "-token-ttl", "1m"}, &out, &bytes.Buffer{}, env, nil))
	tok := strings.TrimSpace(out.String())
	require.Regexp(t, `^[0-9]+\.[A-Za-z0-9_-]{43}$`, tok)
	// Without the secret there is nothing to sign with.
	require.Error(t, run(context.Background(), []string{"-mint-token", "lobby"}, &out, &bytes.Buffer{}, func(string) string { return "" }, nil))
}

func TestRunRejectsBadFlags(t *testing.T) {
	none := func(string) string { return "" }
	for _, args := range [][]string{
		{"-max-room", "-1"},
		{"-turn", "turn:x:3478"}, // no credentials
		{"-stun", "http://x"},
		{"-log-level", "loud"},
		{"-token-room", "ranked-"}, // no secret to sign its tokens
		{"extra"},
	} {
		require.Error(t, run(context.Background(), args, &bytes.Buffer{}, &bytes.Buffer{}, none, nil), "%q", args)
	}
}

func TestRunMintsTURNCredentials(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	env := func(k string) string { return map[string]string{"ROLLNET_TURN_SECRET": "t"}[k] }
	go func() {
		errc <- run(ctx, []string{"-addr", "127.0.0.1:0", "-turn", "turn:turn.example.org:3478"},
			&bytes.Buffer{}, &bytes.Buffer{}, env, func(a string) { addrc <- a })
	}()
	c, err := client.Dial(ctx, "ws://"+recv(t, addrc, "the server's address")+"/room/a", client.Config{})
	require.NoError(t, err)
	ice := c.ICEServers()
	require.Len(t, ice, 1)
	require.True(t, strings.HasSuffix(ice[0].Username, ":"+c.ID()), ice[0].Username)
	require.NotEmpty(t, ice[0].Credential)
	require.NoError(t, c.Close())
	cancel()
	require.NoError(t, recv(t, errc, "run to return"))
}

// waitBound bounds every wait of these tests on the command's goroutine
// and its clients.
const waitBound = 20 * time.Second

// recv receives from c, failing t, saying what it waited for, if nothing
// comes within waitBound.
func recv[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(waitBound):
		t.Fatalf("waited %v for %s", waitBound, what)
	}
	var zero T
	return zero
}

// recv2 is recv that also says whether c is still open.
func recv2[T any](t *testing.T, c <-chan T, what string) (T, bool) {
	t.Helper()
	select {
	case v, ok := <-c:
		return v, ok
	case <-time.After(waitBound):
		t.Fatalf("waited %v for %s", waitBound, what)
	}
	var zero T
	return zero, false
}
