//go:build !js

package udp_test

import (
	"context"
	"fmt"
	"time"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
	"github.com/rollnet/rollnet/transport/udp"
)

// A dedicated host and one client on loopback. The backend that mints the
// connect token shares its secret with the host; the client only carries
// the grant it was handed.
func Example() {
	secret := []byte("the backend's secret, shared with its hosts")
	const address = "game.example:7777" // how tokens name the host
	host, err := udp.Listen("127.0.0.1:0", udp.Config{TokenSecret: secret, Address: address})
	if err != nil {
		panic(err)
	}
	defer host.Close()

	// The backend, for player 42.
	grant, err := connecttoken.Mint(secret, connecttoken.Claims{
		Client: 42, Address: address, Expires: time.Now().Add(30 * time.Second),
	}, nil)
	if err != nil {
		panic(err)
	}

	// The player's client dials the host's real address with the grant.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	client, err := udp.Dial(ctx, host.LocalAddr().String(), udp.Config{Grant: &grant})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	peers, err := host.WaitPeers(ctx, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println("host sees", peers, "- client sees", client.Host())

	if err := client.Send(client.Host(), []byte("input 1")); err != nil {
		panic(err)
	}
	buf := make([]byte, transport.MaxDatagram)
	for ctx.Err() == nil {
		n, from, err := host.Receive(buf)
		if err == transport.ErrNoPacket {
			time.Sleep(time.Millisecond) // a game loop's frame
			continue
		}
		fmt.Printf("host got %q from %s\n", buf[:n], from)
		break
	}
	// Output:
	// host sees [client-42] - client sees udp://game.example:7777
	// host got "input 1" from client-42
}
