//go:build !js

package dedicated

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
	"github.com/rollnet/rollnet/transport/udp"
)

// TestMatchOverUDP: a dedicated host with -udp (and -webrtc=false)
// admits a client over transport/udp with a connect token minted for
// -udp-address, and every state the client applies agrees with the
// host's checksum of its frame. A client without a token for it is not
// admitted.
func TestMatchOverUDP(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	secret := []byte("the game backend's secret, 32 B+")
	file := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(file, append(secret, '\n'), 0o600))

	hostCtx, stopHost := context.WithCancel(ctx)
	logs := &syncBuffer{}
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(hostCtx, "rollnet-host", testGames, []string{"-game", "line3", "-room", line3Room, "-stats-every", "0",
			"-udp", "127.0.0.1:0", "-udp-address", "game.test:7777", "-token-secret-file", file, "-webrtc=false"},
			logs, func(u string) { ready <- u })
	}()
	defer func() {
		stopHost()
		require.NoError(t, <-done)
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("host ended: %v\n%s", err, logs)
	}
	m := regexp.MustCompile(`msg="udp listening" addr=(\S+) id=(\S+)`).FindStringSubmatch(logs.String())
	require.NotNil(t, m, "no udp listening line:\n%s", logs)
	require.Equal(t, "udp://game.test:7777", m[2])

	other, err := connecttoken.Mint(secret, connecttoken.Claims{Room: line3Room, Client: 76, Expires: time.Now().Add(time.Minute), Address: "elsewhere:1"}, nil)
	require.NoError(t, err)
	_, err = udp.Dial(ctx, m[1], udp.Config{Grant: &other, HandshakeTimeout: 300 * time.Millisecond})
	require.ErrorIs(t, err, udp.ErrHandshakeTimeout, "a token for another host")

	g, err := connecttoken.Mint(secret, connecttoken.Claims{Room: line3Room, Client: 77, Expires: time.Now().Add(time.Minute), Address: "game.test:7777"}, nil)
	require.NoError(t, err)
	c, err := udp.Dial(ctx, m[1], udp.Config{Grant: &g})
	require.NoError(t, err)
	defer c.Close()
	require.Equal(t, transport.Peer("client-77"), c.Local())
	agreed, err := playChecked(ctx, c, c.Host(), 30, nil)
	require.NoError(t, err)
	require.Equal(t, 30, agreed)
}

// -udp takes a token secret, and its companions need it.
func TestUDPFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-udp", "127.0.0.1:0"},
		{"-udp-address", "game.test:1"},
		{"-udp", "nonsense", "-token-secret-file", "x"},
		{"-webrtc=false", "-token-secret-file", "x"},
	} {
		gs, err := checkGames(testGames)
		require.NoError(t, err)
		_, err = parse("rollnet-host", gs, args, io.Discard)
		require.ErrorIs(t, err, ErrUsage, "%q", args)
	}
}
