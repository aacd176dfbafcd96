package webrtc_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// Two endpoints join one room of a signaling server started in-process,
// connect over WebRTC on loopback, and exchange a datagram. A game decides
// who plays whom from the ids alone: here the lower id is player 0.
func ExampleDial() {
	srv, err := signaling.NewServer(signaling.ServerConfig{})
	if err != nil {
		panic(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/room/lobby"

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := webrtc.Config{LoopbackOnly: true} // no ICE servers: both on this machine
	alice, err := webrtc.Dial(ctx, url, cfg)
	if err != nil {
		panic(err)
	}
	defer alice.Close()
	bob, err := webrtc.Dial(ctx, url, cfg)
	if err != nil {
		panic(err)
	}
	defer bob.Close()

	peers, err := bob.WaitPeers(ctx, 1) // bob's data channel to alice is open
	if err != nil {
		panic(err)
	}
	fmt.Println("bob sees alice:", peers[0] == alice.Local())
	// Both sides agree on seats without a message: the lower id plays 0.
	// (The ids are random, so this example does not print the outcome.)
	_ = bob.Local() < alice.Local()

	if err := bob.Send(alice.Local(), []byte("hello")); err != nil {
		panic(err)
	}
	buf := make([]byte, transport.MaxDatagram)
	for { // a game polls once per frame; this example polls until it arrives
		n, from, err := alice.Receive(buf)
		if err == nil {
			fmt.Printf("alice got %q from bob: %v\n", buf[:n], from == bob.Local())
			break
		}
		if ctx.Err() != nil {
			panic("no datagram from bob within 10 s")
		}
		time.Sleep(time.Millisecond)
	}
	for _, e := range alice.Events(nil) {
		fmt.Println("alice:", e.Kind, e.Peer == bob.Local())
	}
	// Output:
	// bob sees alice: true
	// alice got "hello" from bob: true
	// alice: connected true
}
