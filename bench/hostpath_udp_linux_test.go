//go:build linux

package main

import (
	"context"
	"encoding/hex"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
	"github.com/rollnet/rollnet/transport/udp"
)

// The host path over transport/udp: the host admits clients with connect
// tokens, which the clients' process mints itself (it plays the game's
// backend too) with the secret the host hands it in reach.
const hostPathUDPAddress = "hostpath.bench:7777"

func udpHostPath(b *testing.B, n int) (transport.Transport, string, func(context.Context) ([]transport.Peer, error)) {
	secret := []byte("BenchmarkHostPath's backend secret")
	h, err := udp.Listen("127.0.0.1:0", udp.Config{TokenSecret: secret, Address: hostPathUDPAddress,
		MaxPeers: n + 2, MaxPending: n + 2, MaxPerAddr: n + 2, QueueLen: 2 * n})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = h.Close() })
	return h, h.LocalAddr().String() + " " + hex.EncodeToString(secret),
		func(ctx context.Context) ([]transport.Peer, error) { return h.WaitPeers(ctx, n) }
}

// udpClientID numbers the clients of the clients' process.
var udpClientID atomic.Uint64

func udpClientPath(ctx context.Context, reach string) (transport.Transport, transport.Peer, error) {
	addr, hexSecret, _ := strings.Cut(reach, " ")
	secret, err := hex.DecodeString(hexSecret)
	if err != nil {
		return nil, "", err
	}
	g, err := connecttoken.Mint(secret, connecttoken.Claims{Client: udpClientID.Add(1),
		Address: hostPathUDPAddress, Expires: time.Now().Add(5 * time.Minute)}, nil)
	if err != nil {
		return nil, "", err
	}
	c, err := udp.Dial(ctx, addr, udp.Config{Grant: &g})
	if err != nil {
		return nil, "", err
	}
	return c, c.Host(), nil
}
