package signaling_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/signaling/client"
)

// Two clients join one room on a server started in-process, and the one
// already there offers to the newcomer.
func Example() {
	srv, err := signaling.NewServer(signaling.ServerConfig{
		ICEServers: []client.ICEServer{{URLs: []string{"stun:stun.example.org:3478"}}},
	})
	if err != nil {
		panic(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/room/lobby"

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// next is a client's next event, or a panic if none comes in time.
	next := func(c *client.Client) client.Event {
		select {
		case ev := <-c.Events():
			return ev
		case <-ctx.Done():
			panic("no event within 10 s")
		}
	}
	alice, err := client.Dial(ctx, url, client.Config{})
	if err != nil {
		panic(err)
	}
	defer alice.Close()
	bob, err := client.Dial(ctx, url, client.Config{})
	if err != nil {
		panic(err)
	}
	defer bob.Close()
	fmt.Println("bob found", len(bob.Peers()), "peer; ICE:", bob.ICEServers()[0].URLs[0])

	ev := next(alice)
	fmt.Println("alice hears", ev.Kind, ev.Peer == bob.ID())
	offer := json.RawMessage(`{"type":"offer","sdp":"v=0..."}`)
	if err := alice.Send(ctx, ev.Peer, client.Signal{Kind: client.SignalOffer, Payload: offer}); err != nil {
		panic(err)
	}
	ev = next(bob)
	fmt.Println("bob hears", ev.Kind, ev.Signal.Kind, "from alice:", ev.Peer == alice.ID())
	fmt.Println(string(ev.Signal.Payload))
	// Output:
	// bob found 1 peer; ICE: stun:stun.example.org:3478
	// alice hears peer-joined true
	// bob hears signal offer from alice: true
	// {"type":"offer","sdp":"v=0..."}
}

// A server on its own listener, as in production: Serve applies the
// accept-time connection caps and the header and idle limits, and Shutdown
// stops it.
func ExampleServer_Serve() {
	srv, err := signaling.NewServer(signaling.ServerConfig{})
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	c, err := client.Dial(context.Background(), "ws://"+ln.Addr().String()+"/room/lobby", client.Config{})
	if err != nil {
		panic(err)
	}
	fmt.Println("joined", c.Room())

	_ = srv.Shutdown(context.Background())
	fmt.Println("serve:", <-served)
	for range c.Events() {
	}
	fmt.Println("client:", errors.Is(c.Err(), client.ErrServerClosing))
	_ = c.Close()
	// Output:
	// joined lobby
	// serve: http: Server closed
	// client: true
}
